"""Stage 1: the C preprocessor over the whole ``.co.cpp`` file, via pcpp.

Macros and ``#if`` apply to ``__co__`` code as to C++. ``#include`` lines, and
``#if`` blocks that test macros we cannot know (``__CUDACC__``, ``__cplusplus``),
pass through untouched for the target compiler; ``#define`` lines are executed and
also kept, so headers included later still see them. ``#line`` markers keep every
position pointing into the user's file.
"""
from __future__ import annotations

import io
import os
import re
import sys
from typing import Iterable, List, Optional, Tuple

from ..cstrings import line_marker
from ..diagnostics import Diagnostics, Loc, source_lines
from .columns import ColumnMap, ExpansionTracker, RecordingWriter

# Directives that change what the text means; without them (and without -D/-U)
# preprocessing is the identity and pcpp need not even be imported.
_ACTIVE_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(?!include\b|pragma\b|line\b|\d)\w", re.M)


# pcpp's messages, reworded as gcc words them
_PCPP_MESSAGES = [
    (re.compile(r"Unterminated\s*(#\s*\w+)"), lambda m: f"unterminated {m[1].replace(' ', '')}"),
    (re.compile(r"Macro (\w+) requires (\d+) arguments but was passed (\d+)"),
     lambda m: f'macro "{m[1]}" passed {m[3]} arguments, but takes just {m[2]}'),
    (re.compile(r"Macro (\w+) must have at least (\d+) arguments?"),
     lambda m: f'macro "{m[1]}" requires at least {m[2]} arguments'),
    (re.compile(r"Could not evaluate expression due to .*\(passed to evaluator: '(.*)'\)", re.S),
     lambda m: f"invalid expression in #if: '{m[1].strip()}'"),
    (re.compile(r"Empty expression"), lambda m: "#if with no expression"),
    (re.compile(r"Misplaced (#\w+)"), lambda m: f"{m[1]} without #if"),
    (re.compile(r"Missing '\)' in macro arguments"), lambda m: "unterminated argument list invoking macro"),
]
_MACRO_NAMED = re.compile(r'macro "(\w+)"')
_EMPTY_CONDITION = re.compile(r"^[ \t]*(#)[ \t]*(if|elif)[ \t]*(?://[^\n]*|/\*[^\n]*?\*/[ \t]*)?$", re.M)


def _gcc_message(msg: str) -> str:
    msg = msg.strip()
    for pattern, words in _PCPP_MESSAGES:
        m = pattern.match(msg)
        if m:
            return words(m)
    return msg.splitlines()[0] if msg else "preprocessing error"


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)
MAX_INCLUDE_DEPTH = 200   # gcc's default -fmax-include-depth
# pcpp expands macros (and nested #include) recursively: room for thousands of levels;
# deeper nesting is reported, not an internal error
PREPROCESS_RECURSION_LIMIT = 12000


def _finds_an_include(text: str, filename: Optional[str], include_dirs: Iterable) -> bool:
    """True when an ``#include`` names a header we can read: its macros apply to __co__ code."""
    here = os.path.dirname(os.path.abspath(filename)) if filename else None
    for m in _INCLUDE.finditer(text):
        dirs = ([here] if m[1] == '"' and here else []) + list(include_dirs)
        if any(os.path.isfile(os.path.join(d, m[2])) for d in dirs):
            return True
    return False


def _misses_a_quoted_include(text: str, filename: Optional[str], include_dirs: Iterable) -> bool:
    """True when a quoted ``#include`` names a header no include path has: pcpp, which
    knows the lines a comment or a skipped ``#if`` hides, then says whether it is an error."""
    here = os.path.dirname(os.path.abspath(filename)) if filename else None
    dirs = ([here] if here else []) + list(include_dirs) + _implicit_quote_dirs()
    return any(m[1] == '"' and not any(os.path.isfile(os.path.join(d, m[2])) for d in dirs)
               for m in _INCLUDE.finditer(text))


def _implicit_quote_dirs() -> List[str]:
    """Where the target compiler also finds a quoted header that no -I names: the runtime's
    headers (every build passes their folder) and gcc's CPATH and CPLUS_INCLUDE_PATH."""
    from ..paths import runtime_dir
    env = [d for var in ("CPATH", "CPLUS_INCLUDE_PATH") for d in os.environ.get(var, "").split(os.pathsep) if d]
    return [runtime_dir(), *env]


def needs_preprocessing(text: str, defines: Iterable, undefines: Iterable,
                        filename: Optional[str] = None, include_dirs: Iterable = ()) -> bool:
    return bool(list(defines) or list(undefines) or _ACTIVE_DIRECTIVE.search(text)
                or "__LINE__" in text or "__FILE__" in text
                or _finds_an_include(text, filename, include_dirs)
                or _misses_a_quoted_include(text, filename, include_dirs))


def preprocess(text: str, filename: str, diag: Diagnostics,
               defines: List[Tuple[str, Optional[str]]] = (),
               undefines: List[str] = (), include_dirs: List[str] = ()) -> str:
    """Returns the preprocessed text, starting with a ``#line 1 "file"`` marker."""
    return preprocess_with_columns(text, filename, diag, defines, undefines, include_dirs)[0]


def preprocess_with_columns(text: str, filename: str, diag: Diagnostics,
                            defines: List[Tuple[str, Optional[str]]] = (),
                            undefines: List[str] = (), include_dirs: List[str] = ()
                            ) -> Tuple[str, Optional[ColumnMap]]:
    """The preprocessed text, and the map of its columns to the user's where macros
    moved them (None where none moved)."""
    if not needs_preprocessing(text, defines, undefines, filename, include_dirs):
        return line_marker(1, filename) + "\n" + text, None
    empty = list(_EMPTY_CONDITION.finditer(text))
    for m in empty:  # pcpp fails on these with an IndexError; gcc: "#if with no expression"
        diag.error(Loc(filename, text.count("\n", 0, m.start()) + 1, m.start(1) - m.start() + 1),
                   f"#{m[2]} with no expression")
    if empty:
        return line_marker(1, filename) + "\n" + text, None
    # pcpp loads its bundled PLY as `ply` unless PLY is imported already; import
    # the pinned PLY first so the tileflow lexer and parser never get pcpp's copy,
    # which writes lextab.py files at run time.
    import ply.lex  # noqa: F401
    import ply.yacc  # noqa: F401
    import pcpp  # imported lazily: most files need no macro expansion

    class _Preprocessor(pcpp.Preprocessor):
        def on_error(self, file, line, msg):
            if not line or file in (None, "unknown"):  # pcpp knows no position: its last directive
                last = getattr(self, "lastdirective", None)
                file, line = (last.source, last.lineno) if last is not None else (filename, 1)
            file = file or filename
            msg = _gcc_message(msg)
            col = 1
            named = _MACRO_NAMED.match(msg)
            if named and file == filename:  # point at the macro's use, not the line start
                lines = source_lines(text)
                if 1 <= line <= len(lines):
                    use = re.search(r"\b%s\s*\(" % re.escape(named[1]), lines[line - 1])
                    col = use.start() + 1 if use else 1
            diag.error(Loc(file, line, col), msg)

        expanding = None    # the first token of the outermost macro expansion under way
        _expansion_depth = 0

        def expand_macros(self, tokens, expanding_from=[]):  # noqa: B006 (pcpp's signature)
            outermost = self._expansion_depth == 0
            if outermost and tokens:
                self.expanding = next((t for t in tokens if t.value in self.macros), tokens[0])
            before = list(tokens) if outermost else None
            self._expansion_depth += 1
            try:
                after = super().expand_macros(tokens, expanding_from)
            finally:
                self._expansion_depth -= 1
            if outermost:
                tracker.mark(before, after)
            return after

        def token(self):
            tok = super().token()
            if tok is not None:
                tracker.placed(tok)
            return tok

        def include(self, tokens, original_line):
            """gcc's limit on nested #include: a file that includes itself (directly or in a
            cycle) is an error at the #include, not a recursion without end."""
            if self.include_depth >= MAX_INCLUDE_DEPTH and original_line:
                hash_tok = original_line[0]
                file = hash_tok.source or filename
                diag.error(Loc(file, hash_tok.lineno, _include_name_column(file, hash_tok.lineno, filename, text)),
                           f"#include nested depth {self.include_depth} exceeds maximum of {MAX_INCLUDE_DEPTH}")
                return iter(())
            self.including = original_line
            return super().include(tokens, original_line)

        def on_file_open(self, is_system_include, includepath):
            """Headers are read as sources are: bytes that are not UTF-8 are kept."""
            with open(includepath, encoding="utf-8", errors="surrogateescape") as fh:
                return io.StringIO(fh.read().lstrip("\ufeff"))

        including = None   # the `#include` line being read (its tokens)
        include_passes_through = False   # it sits in an `#if` on a macro only the target compiler knows
        missing_reported = False

        def on_include_not_found(self, is_malformed, is_system_include, curdir, includepath):
            """A system header is the target compiler's to find; a quoted one that no path
            has is gcc's fatal error, at the #include, before any error its absence causes."""
            line = self.including
            if self.include_passes_through or self.missing_reported:
                raise pcpp.OutputDirective(pcpp.Action.IgnoreAndPassThrough)
            if not (is_system_include or is_malformed or line is None) and not any(
                    os.path.isfile(os.path.join(d, includepath)) for d in _implicit_quote_dirs()):
                hash_tok = line[0]
                file = hash_tok.source or filename
                diag.fatal_error(Loc(file, hash_tok.lineno,
                                     _include_name_column(file, hash_tok.lineno, filename, text)),
                                 f"{includepath}: No such file or directory")
                self.missing_reported = True   # gcc stops at the first
            raise pcpp.OutputDirective(pcpp.Action.IgnoreAndPassThrough)

        def on_unknown_macro_in_defined_expr(self, tok):
            return False if tok.value in undefines else None

        def on_unknown_macro_in_expr(self, ident):
            return 0 if ident in undefines else None

        def on_unknown_macro_function_in_expr(self, ident):
            return None

        def on_directive_handle(self, directive, toks, ifpassthru, precedingtoks):
            if directive.value == "include":
                self.include_passes_through = ifpassthru
            if directive.value in ("define", "undef"):
                if not ifpassthru:
                    super().on_directive_handle(directive, toks, ifpassthru, precedingtoks)
                return None  # keep the line for the target compiler as well
            return super().on_directive_handle(directive, toks, ifpassthru, precedingtoks)

        def on_directive_unknown(self, directive, toks, ifpassthru, precedingtoks):
            if directive.value == "error" and not ifpassthru:
                msg = "".join(t.value for t in toks).strip()
                diag.error(Loc(directive.source or filename, directive.lineno, 1), f"#error {msg}")
                return True
            return None

    tracker = ExpansionTracker(text, filename)
    pp = _Preprocessor()
    pp.passthru_includes = re.compile(r".*")
    pp.line_directive = "#line"
    # #line markers name the file as the user gave it (pcpp writes absolute paths and
    # shortens those under the cwd), so messages match gcc's and the source map
    pp.rewrite_paths = [("^" + re.escape(os.path.abspath(filename)) + "$", filename.replace("\\", "\\\\"))]
    pp.compress = 0
    # __FILE__ is left to the C++ compiler, which takes it from the #line markers (pcpp
    # would paste the name between quotes unescaped)
    pp.expand_filemacro = False
    for d in include_dirs:
        pp.add_path(d)
    for name, value in defines:
        pp.define(f"{name} {value if value is not None else 1}")
    for name in undefines:
        pp.undef(name)
    out = RecordingWriter()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, PREPROCESS_RECURSION_LIMIT))  # pcpp recurses per macro level
    try:
        pp.parse(text, filename)
        pp.write(out)
    except RecursionError:
        tok = pp.expanding
        file, line = (tok.source or filename, tok.lineno) if tok is not None else (filename, 1)
        diag.error(Loc(file, line, _macro_column(file, line, filename, text, pp.macros)),
                   "macro expansion nested too deeply")
        return line_marker(1, filename) + "\n" + text, None
    finally:
        sys.setrecursionlimit(limit)
    # pcpp writes the file's name raw; a '"', '\\' or newline in it would break the markers
    raw_marker = re.compile(r'^#line (\d+) "' + re.escape(filename) + '"$', re.M)
    result = raw_marker.sub(lambda m: line_marker(int(m[1]), filename), out.getvalue())
    first_line = 0
    if not result.startswith("#line"):
        result = line_marker(1, filename) + "\n" + result
        first_line = 1
    return result, ColumnMap(text, result, filename, out.pieces, first_line) or None


def _source_line(file: str, line: int, main_file: str, main_text: str) -> str:
    """Line ``line`` of ``file`` (the main file's text is at hand), or '' if unreadable."""
    if file == main_file:
        text = main_text
    else:
        try:
            with open(file, encoding="utf-8", errors="surrogateescape") as fh:
                text = fh.read()
        except OSError:
            return ""
    lines = source_lines(text)
    return lines[line - 1] if 1 <= line <= len(lines) else ""


def _include_name_column(file: str, line: int, main_file: str, main_text: str) -> int:
    """The column of the file name in the #include on ``line`` of ``file`` (1 if unknown)."""
    m = _INCLUDE.match(_source_line(file, line, main_file, main_text))
    return m.start(1) + 1 if m else 1


def _macro_column(file: str, line: int, main_file: str, main_text: str, macros) -> int:
    """The column of the first macro used on ``line`` of ``file`` (1 if none is found)."""
    for m in re.finditer(r"[A-Za-z_]\w*", _source_line(file, line, main_file, main_text)):
        if m.group() in macros:
            return m.start() + 1
    return 1
