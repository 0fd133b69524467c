"""PLY lexer for the tileflow language inside ``__co__`` functions.

The token rules are the token specification. ``#line`` markers left by the
preprocessor reset the file and line, so every token points into the user's file.
"""
from __future__ import annotations

import bisect
import re

import ply.lex

from ..cstrings import unescape
from ..diagnostics import Loc, shown

KEYWORDS = {
    "__co__": "CO",
    "parallel": "PARALLEL", "inthreads": "INTHREADS", "by": "BY", "with": "WITH", "in": "IN", "where": "WHERE",
    "foreach": "FOREACH", "if": "IF", "dma": "DMA", "tma": "DMA", "mma": "MMA", "frag": "FRAG", "wait": "WAIT", "call": "CALL",
    "return": "RETURN", "mdspan": "MDSPAN", "ituple": "ITUPLE",
    "local": "STORAGE", "shared": "STORAGE", "global": "STORAGE",
    "int": "INT", "bool": "BOOL", "void": "VOID", "auto": "AUTO",
    "float": "FLOATTYPE", "double": "FLOATTYPE", "half": "FLOATTYPE",
    "bfp16": "FLOATTYPE", "half8": "FLOATTYPE",
    "true": "TRUE", "false": "FALSE",
    "event": "EVENT", "trigger": "TRIGGER",
    "mutable": "MUTABLE", "else": "ELSE", "while": "WHILE", "break": "BREAK", "continue": "CONTINUE",
    "u8": "ELEMTYPE", "u16": "ELEMTYPE", "u32": "ELEMTYPE",
    "s8": "ELEMTYPE", "s16": "ELEMTYPE", "s32": "ELEMTYPE",
    "f16": "ELEMTYPE", "bf16": "ELEMTYPE", "f32": "ELEMTYPE",
    # the reference compiler's further element types (README "Host code and element types")
    "s64": "ELEMTYPE", "u64": "ELEMTYPE", "f64": "ELEMTYPE",
    "f8": "ELEMTYPE", "f8_e4m3": "ELEMTYPE", "f8_e5m2": "ELEMTYPE",
    "f6_e2m3": "ELEMTYPE", "f6_e3m2": "ELEMTYPE", "f4_e2m1": "ELEMTYPE",
    "s6": "ELEMTYPE", "u6": "ELEMTYPE", "s4": "ELEMTYPE", "u4": "ELEMTYPE",
    "s2": "ELEMTYPE", "u2": "ELEMTYPE", "u1": "ELEMTYPE", "bin1": "ELEMTYPE",
    "_": "UNDERSCORE",
    "stream": "STREAM",
}
# other spellings of an element type: the token's value is the type's one name
ELEM_ALIASES = {"f8": "f8_e4m3"}

tokens = sorted(set(KEYWORDS.values())) + [
    "AFTER",  # `after` right after an operand (`dma.copy a => b after f`); elsewhere a name
    "PROTOTYPE",  # never in the text: put first where a prototype is parsed (parser.CroktileParser.parse)
    "ID", "INT_CONST", "FLOAT_CONST",
    "PLUS", "MINUS", "TIMES", "DIVIDE", "MOD", "LSHIFT", "RSHIFT",
    "AND", "OR", "XOR", "NOT", "LNOT", "LAND", "LOR",
    "EQ", "NE", "LT", "GT", "LE", "GE",
    "EQUALS", "ARROW", "BIND", "HASH", "QUESTION", "COLON",
    "PLUSEQ", "MINUSEQ", "TIMESEQ", "DIVEQ", "MODEQ", "STRING_CONST",
    "ANDEQ", "OREQ", "XOREQ", "LSHIFTEQ", "RSHIFTEQ",
    "LPAREN", "RPAREN", "LBRACKET", "RBRACKET", "LBRACE", "RBRACE",
    "COMMA", "SEMI", "PERIOD",
]


INT_MAX = 2 ** 31 - 1   # tileflow's int is 32-bit (spec 2, "Scalar Types")
_INT_PARTS = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)(.*)")
_CXX_INT_SUFFIX = re.compile(r"[uU]?(ll|LL|l|L)?|(ll|LL|l|L)[uU]")


_SPACED_COMPOUND = {"+": "PLUSEQ", "-": "MINUSEQ", "*": "TIMESEQ", "/": "DIVEQ", "%": "MODEQ"}


class IntConst(int):
    """An integer constant that C++ accepts but tileflow's 32-bit 'int' does not (`1ULL`,
    `12345678910`): it parses, and ``problem`` is the error that any use of it reports."""

    def __new__(cls, value: int, problem: str):
        self = super().__new__(cls, value)
        self.problem = problem
        return self


# tokens that end an operand: a '-' after one of them is binary
_OPERAND_ENDS = {"ID", "INT_CONST", "FLOAT_CONST", "RPAREN", "RBRACKET", "RBRACE", "TRUE", "FALSE",
                 "UNDERSCORE"}
_AFTER_ENDS = _OPERAND_ENDS | {"STORAGE"}   # a name cannot follow these: `after` there is the keyword
_NEWLINE = re.compile("\n")
_NOT_UTF8 = re.compile("[\udc80-\udcff]+")
# tokens after which an operand follows: a '{' after them opens an i-tuple literal
_OPERAND_EXPECTED = {"PLUS", "MINUS", "TIMES", "DIVIDE", "MOD", "LSHIFT", "RSHIFT", "AND", "OR", "XOR",
                     "NOT", "LNOT", "LAND", "LOR", "EQ", "NE", "LT", "GT", "LE", "GE", "EQUALS",
                     "QUESTION", "COLON", "LPAREN", "LBRACKET", "COMMA", "HASH", "BY", "IN", "RETURN",
                     "PLUSEQ", "MINUSEQ", "TIMESEQ", "DIVEQ", "MODEQ", "ANDEQ", "OREQ", "XOREQ", "LSHIFTEQ",
                     "RSHIFTEQ"}
# words that are keywords only where their construct can start (`mma.`, `tma.`, `frag.s32`,
# `frag mc[2]`), so that programs keep device functions and variables of these names
_CONTEXTUAL = {"mma": re.compile(r"[ \t]*\."), "tma": re.compile(r"[ \t]*\."),
               "frag": re.compile(r"[ \t]*(\.|[A-Za-z_])")}
_CLOSER_OF = {"LPAREN": "RPAREN", "LBRACKET": "RBRACKET", "LBRACE": "RBRACE"}
_OPENER_OF = {close: open_ for open_, close in _CLOSER_OF.items()}


def _bad_bytes_message(run: str) -> str:
    """`invalid UTF-8 in tileflow code: bytes 0xc3 0x28` for a run of escaped bytes."""
    listed = " ".join(f"0x{ord(ch) - 0xDC00:02x}" for ch in run[:4]) + (" ..." if len(run) > 4 else "")
    return f"invalid UTF-8 in tileflow code: byte{'s' if len(run) > 1 else ''} {listed}"


class LexError(Exception):
    def __init__(self, loc: Loc, msg: str):
        super().__init__(msg)
        self.loc = loc
        self.msg = msg


_LINE_MARKER = re.compile(r'[ \t]*(?P<hash>\#)[ \t]*(?:line)?[ \t]*(?P<line>\d+)(?:[ \t]+"(?P<file>(?:[^"\\]|\\.)*)")?[^\n]*')


_KEPT_DIRECTIVE = re.compile(r"[ \t]*(?P<hash>\#)[ \t]*(?:(?:define|undef|pragma|ident)\b(?:\\[ \t]*\r?\n|[^\n])*)?(?=\r?\n|$)")
_NON_BLANK = re.compile(r"\S")
_SPLICE = re.compile(r"\\[ \t]*\r?\n")


def _join_splices(t) -> None:
    """A line splice inside a name or number joins its parts (C++ phase 2): `lo\\` then
    `ng` on the next line is `long`."""
    if "\\" in t.value:
        t.lexer.lineno += t.value.count("\n")
        t.value = _SPLICE.sub("", t.value)


_built = None   # the first PLY lexer of the process, which later ones clone


class CroktileLexer:
    """Wraps a PLY lexer and keeps the (file, line, column) of the text it scans."""

    tokens = tokens

    t_ignore = " \t\r\f\v"

    t_BIND = r"<->"
    t_LSHIFTEQ = r"<<="
    t_RSHIFTEQ = r">>="
    t_ANDEQ = r"&="
    t_OREQ = r"\|=(?!=)"   # `|x|== n` closes a size before `==`
    t_XOREQ = r"\^="
    t_ARROW = r"=>"
    t_LSHIFT = r"<<"
    t_RSHIFT = r">>"
    t_LAND = r"&&"
    t_LOR = r"\|\|"
    t_EQ = r"=="
    t_NE = r"!="
    t_PLUSEQ = r"\+="
    t_MINUSEQ = r"-="
    t_TIMESEQ = r"\*="
    t_DIVEQ = r"/="
    t_MODEQ = r"%="
    t_LE = r"<="
    t_GE = r">="
    t_LT = r"<"
    t_GT = r">"
    t_PLUS = r"\+"
    t_MINUS = r"-"
    t_TIMES = r"\*"
    t_DIVIDE = r"/"
    t_MOD = r"%"
    t_AND = r"&"
    t_OR = r"\|"
    t_XOR = r"\^"
    t_NOT = r"~"
    t_LNOT = r"!"
    t_EQUALS = r"="
    t_QUESTION = r"\?"
    t_COLON = r":"
    t_LPAREN = r"\("
    t_RPAREN = r"\)"
    t_LBRACKET = r"\["
    t_RBRACKET = r"\]"
    t_LBRACE = r"\{"
    t_RBRACE = r"\}"
    t_COMMA = r","
    t_SEMI = r";"

    def __init__(self, filename: str = "<input>", line: int = 1, col: int = 1):
        self.filename = filename
        self.start_line = line
        self.start_col = col
        self.lexer = None
        self.on_error = None  # called with a LexError instead of raising it, when set
        self.colmap = None    # (file, line, col) -> col, set after macro expansion

    def build(self):
        """PLY's lexer for this object: the first one of a process is built from the rules
        (reflection, a check of the rules' source, the master regular expression), later
        ones are clones of it with the rules bound to their own object (a warm compile
        server's runs, several parsers in one process)."""
        global _built
        if _built is None:
            _built = ply.lex.lex(module=self)
            self.lexer = _built
        else:
            self.lexer = _built.clone(self)
            self.lexer.begin("INITIAL")   # clone() rebinds the state tables, not the current state
        return self

    def input(self, text: str, filename: str, line: int = 1, col: int = 1) -> None:
        """Scan ``text`` whose first character sits at ``filename:line:col``."""
        self.filename = filename
        self.lexer.lineno = line
        self.lexer.input(text)
        self._text = text
        self._first_col = col
        # offsets of the newlines: a column is found by bisection, not by scanning back
        # along the line (quadratic on a long line of tokens)
        self._newlines = [m.start() for m in _NEWLINE.finditer(text)]
        self._pushback = []
        self.prev_token = None   # the token before `last_token` (for "expected ';'" after it)
        self.last_token = None
        self.open_brackets = []  # the '(', '[' and '{' tokens read and not closed yet
        self.open_counts = {kind: 0 for kind in _CLOSER_OF}   # of each kind in open_brackets
        self.recovering = False  # the parser is skipping tokens after a syntax error

    def token(self):
        if self._pushback:
            tok = self._pushback.pop()
        else:
            tok = self._next()
            if self.recovering:
                tok = self._skipping_tuples(tok)
            if (tok is not None and tok.type == "ID" and tok.value == "after" and self.last_token is not None
                    and self.last_token.type in _AFTER_ENDS):
                tok.type = "AFTER"
        self.prev_token, self.last_token = self.last_token, tok
        return tok

    def _next(self):
        tok = self.lexer.token()
        if tok is not None:
            tok.endlexpos = self.lexer.lexpos
            self._track_brackets(tok)
        return tok

    def _skipping_tuples(self, tok):
        """While the parser skips to the next ';' or block after a syntax error, an i-tuple
        literal `{...}` is skipped whole: its '{' must not pass for the start of a block
        (the parser would then take the rest of the function for that block's body)."""
        while (tok is not None and tok.type == "LBRACE" and self.last_token is not None
               and self.last_token.type in _OPERAND_EXPECTED):
            depth = 1
            while depth and tok is not None:
                tok = self._next()
                if tok is not None and tok.type in ("LBRACE", "RBRACE"):
                    depth += 1 if tok.type == "LBRACE" else -1
            tok = self._next()
        if tok is None or tok.type in ("SEMI", "LBRACE", "RBRACE"):
            self.recovering = False
        return tok

    def _track_brackets(self, tok) -> None:
        """Keeps ``open_brackets``; a closer that does not match the innermost opener gets
        that opener as ``tok.mismatched`` (for "to match this '('" notes)."""
        if tok.type in _CLOSER_OF:
            self.open_brackets.append(tok)
            self.open_counts[tok.type] += 1
            return
        want = _OPENER_OF.get(tok.type)
        if want is None:
            return
        stack = self.open_brackets
        if stack and stack[-1].type == want:
            self.open_counts[stack.pop().type] -= 1
            return
        tok.mismatched = stack[-1] if stack else None
        if self.open_counts[want]:   # it closes the nearest opener of its kind
            k = len(stack) - 1
            while stack[k].type != want:
                k -= 1
            for closed in stack[k:]:
                self.open_counts[closed.type] -= 1
            del stack[k:]
        else:   # nothing open needs it, mid-line, inside a block of earlier lines: one too many (`if (a)) {`)
            line_start = self.line_start(tok.lexpos)
            inner = tok.mismatched
            tok.extraneous = (_NON_BLANK.search(self._text, line_start, tok.lexpos) is not None
                              and (inner is None or (inner.type == "LBRACE" and inner.lexpos < line_start)))

    def innermost_open(self, tok):
        """The innermost bracket open before ``tok`` (the token being looked at)."""
        stack = self.open_brackets
        if stack and stack[-1] is tok:
            return stack[-2] if len(stack) > 1 else None
        return stack[-1] if stack else None

    def push_back(self, tok) -> None:
        """Makes ``tok`` the next token again (the parser inserted one before it)."""
        self._pushback.append(tok)

    def spelling(self, tok) -> str:
        """The token as written in the source."""
        end = getattr(tok, "endlexpos", None)
        if end is not None and not getattr(tok, "virtual", False):
            return self._text[tok.lexpos:end]
        return tok.value if isinstance(tok.value, str) else str(tok.value)

    def end_loc(self, tok) -> Loc:
        """The position just after ``tok``."""
        return self.loc(tok.lineno, getattr(tok, "endlexpos", tok.lexpos))

    @property
    def lineno(self) -> int:
        return self.lexer.lineno if self.lexer is not None else 1

    @property
    def lexpos(self) -> int:
        return self.lexer.lexpos if self.lexer is not None else 0

    def __iter__(self):
        while True:
            tok = self.token()
            if tok is None:
                return
            yield tok

    # -- positions -----------------------------------------------------------
    def line_start(self, lexpos: int) -> int:
        """The offset where the line holding ``lexpos`` starts."""
        k = bisect.bisect_left(self._newlines, lexpos)
        return self._newlines[k - 1] + 1 if k else 0

    def column(self, lexpos: int) -> int:
        start = self.line_start(lexpos)
        return self._first_col + lexpos if start == 0 else lexpos - start + 1

    def loc(self, lineno: int, lexpos: int) -> Loc:
        col = self.column(lexpos)
        if self.colmap is not None:  # columns of macro-expanded lines -> the user's columns
            col = self.colmap(self.filename, lineno, col)
        return Loc(self.filename, lineno, col)

    # -- rules with code (PLY applies these in definition order) -------------
    def t_FLOAT_CONST(self, t):
        r"((\d+\.\d*|\.\d+)([eE][-+]?\d+)?|\d+[eE][-+]?\d+)[fFlL]?"
        return t

    def t_INT_CONST(self, t):
        r"(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)[A-Za-z0-9_]*(?:\\[ \t]*\r?\n[A-Za-z0-9_]+)*"
        _join_splices(t)
        digits, suffix = _INT_PARTS.match(t.value).groups()
        t.value = 0  # after an error: the function is not checked, any value will do
        base = {"0x": 16, "0X": 16, "0b": 2, "0B": 2}.get(digits[:2], 8 if digits[:1] == "0" else 10)
        body = digits[2:] if base in (16, 2) else digits
        bad = next((ch for ch in body if ch in "89"), None) if base == 8 else None
        if bad is not None:
            self._report(t, f"invalid digit '{bad}' in octal constant")
            return t
        # 40 significant digits exceed 'int' in every base; int() is then never asked to
        # convert a huge string (Python refuses more than 4300 decimal digits)
        value = int(body, base) if len(body.lstrip("0")) <= 40 else INT_MAX + 2
        # a C++ integer constant that is no tileflow 'int' (a suffix, or 64-bit) still parses,
        # as in the reference; its use is an error (IntConst.problem, reported by the checker)
        if suffix and _CXX_INT_SUFFIX.fullmatch(suffix):
            t.value = IntConst(value, f"invalid suffix '{suffix}' on integer constant; tileflow "
                                      "integers are 'int', written without a suffix")
        elif suffix:
            self._report(t, f"invalid suffix '{suffix}' on integer constant; tileflow integers "
                            "are 'int', written without a suffix")
        elif value > INT_MAX and not (value == INT_MAX + 1 and self._after_unary_minus()):
            t.value = IntConst(value, f"integer constant is too large for type 'int' (the largest is {INT_MAX})")
        else:
            t.value = value
        return t

    def _after_unary_minus(self) -> bool:
        """Whether the token before the one being scanned is a unary '-': `-2147483648` is
        INT_MIN, although 2147483648 on its own does not fit in 'int'."""
        minus, before = self.last_token, self.prev_token
        return (minus is not None and minus.type == "MINUS"
                and (before is None or before.type not in _OPERAND_ENDS))

    def t_STRING_CONST(self, t):
        r'"([^"\\\n]|\\.)*"'
        return t   # kept as written (quotes and escapes): generated C++ prints it as is

    def t_PERIOD(self, t):
        r"\."
        return t

    def t_ID(self, t):
        r"[A-Za-z_][A-Za-z0-9_]*(?:\\[ \t]*\r?\n[A-Za-z0-9_]+)*"
        _join_splices(t)
        t.type = KEYWORDS.get(t.value, "ID")
        if t.value in _CONTEXTUAL and not _CONTEXTUAL[t.value].match(self._text, t.lexpos + len(t.value)):
            t.type = "ID"   # `call mma(...)`: a name where no tensor-core operation can start
        if t.type == "ELEMTYPE":
            t.value = ELEM_ALIASES.get(t.value, t.value)
        return t

    def t_HASH(self, t):
        r"\#"
        marker = _LINE_MARKER.match(self._text, self.line_start(t.lexpos))
        if marker and marker.start("hash") == t.lexpos:
            # `#line N "file"` (the '#' first on its line): the next line is line N of that file
            t.lexer.lineno = int(marker["line"]) - 1
            if marker["file"] is not None:
                self.filename = unescape(marker["file"])
            t.lexer.lexpos = marker.end()
            return None
        directive = _KEPT_DIRECTIVE.match(self._text, self.line_start(t.lexpos))
        if directive and directive.start("hash") == t.lexpos:
            # `#define`, `#undef`, `#pragma` inside a function: the preprocessor has applied
            # it (and keeps it for the target compiler); it is no tileflow code
            t.lexer.lineno += directive.group().count("\n")
            t.lexer.lexpos = directive.end()
            return None
        return t

    def t_comment(self, t):
        r"/\*(.|\n)*?\*/|//(\\\r?\n|[^\n])*"
        t.lexer.lineno += t.value.count("\n")   # a `//` comment goes on after a line splice

    def t_newline(self, t):
        r"\n+"
        t.lexer.lineno += len(t.value)

    def t_splice(self, t):
        r"\\[ \t]*\r?\n"
        # backslash-newline joins two lines before tokens exist (C++ phase 2); between
        # tokens that is whitespace. gcc also accepts blanks before the newline (warning).
        t.lexer.lineno += 1

    def _report(self, t, msg: str) -> None:
        err = LexError(self.loc(t.lexer.lineno, t.lexpos), msg)
        if self.on_error is None:
            raise err
        self.on_error(err)

    def t_spaced_compound(self, t):
        r"[-+*/%][ \t]+="
        # `mc + = 1;`: the reference lexes `+=` as `+` and `=`, so a blank between them is
        # allowed there; here it is the one token all the same
        t.type = _SPACED_COMPOUND[t.value[0]]
        t.value = t.value[0] + "="
        return t

    def t_error(self, t):
        bad = _NOT_UTF8.match(t.value)
        if bad:   # bytes that are not UTF-8 (decoded with surrogateescape): one error for the run
            msg, skip = _bad_bytes_message(bad.group()), len(bad.group())
        else:
            msg, skip = f"stray '{shown(t.value[0])}' in tileflow code", 1
        err = LexError(self.loc(t.lexer.lineno, t.lexpos), msg)
        if self.on_error is None:
            raise err
        self.on_error(err)  # reported; skip the character and go on, as gcc does
        t.lexer.skip(skip)
