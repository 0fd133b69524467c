"""PLY grammar for one ``__co__`` function; the ``p_*`` docstrings are the grammar.

Tables are generated once, when the package is built (``python -m
croktile_driver.frontend.parser --write-tables DIR``), and shipped as
``_parsetab.py``. At run time the parser only reads them; it never writes tables or
``parser.out``, so many ``croktilec`` processes can run at once under ninja.
"""
from __future__ import annotations

import copy
import sys
from typing import List, Optional

import ply.lex
import ply.yacc

from . import ast as A
from ..diagnostics import Diagnostics, Loc, did_you_mean
from .lexer import KEYWORDS, LexError, CroktileLexer, tokens  # noqa: F401  (PLY reads `tokens`)

TABLE_MODULE = "croktile_driver.frontend._parsetab"
FLOAT_ELEMS = {"double": "f64", "float": "f32", "half": "f16", "bfp16": "bf16", "half8": "f8_e4m3"}

_SPELLING = {
    "PLUS": "+", "MINUS": "-", "TIMES": "*", "DIVIDE": "/", "MOD": "%", "LSHIFT": "<<",
    "RSHIFT": ">>", "AND": "&", "OR": "|", "XOR": "^", "NOT": "~", "LNOT": "!",
    "LAND": "&&", "LOR": "||", "EQ": "==", "NE": "!=", "LT": "<", "GT": ">", "LE": "<=",
    "GE": ">=", "EQUALS": "=", "ARROW": "=>", "BIND": "<->", "HASH": "#", "QUESTION": "?",
    "COLON": ":", "LPAREN": "(", "RPAREN": ")", "LBRACKET": "[", "RBRACKET": "]",
    "LBRACE": "{", "RBRACE": "}", "COMMA": ",", "SEMI": ";", "PERIOD": ".",
    "AFTER": "after", "ID": "identifier", "INT_CONST": "integer constant", "FLOAT_CONST": "floating constant",
    "STRING_CONST": "string literal", "PLUSEQ": "+=", "MINUSEQ": "-=", "TIMESEQ": "*=", "DIVEQ": "/=",
    "MODEQ": "%=",
}

_CLOSER = {"LPAREN": "RPAREN", "LBRACKET": "RBRACKET", "LBRACE": "RBRACE"}
# Keywords whose misspelling at the start of a statement is reported as one (`paralel p by
# 6`: "unknown keyword 'paralel'; did you mean 'parallel'?"), those the grammar takes there;
# element types (s8, u8, f16, ...) are too short and too alike to guess between
_HEAD_WORDS = [w for w, t in KEYWORDS.items() if t not in ("ELEMTYPE", "TRUE", "FALSE", "UNDERSCORE", "CO")]
_TYPE_WORDS = {"INT", "BOOL", "VOID", "AUTO", "FLOATTYPE", "MDSPAN", "ITUPLE"}
# what follows a keyword that starts a statement (`paralel p`, `locl s32`, `iff (`,
# `dam.copy`); a word followed by anything else (`=`, `[`, an operator) is taken for a
# variable's name, and its statement's syntax error is reported as it is
_AFTER_HEAD = {"ID", "ELEMTYPE", "FLOATTYPE", "STORAGE", "INT", "BOOL", "INT_CONST", "LPAREN", "PERIOD", "LBRACE"}
_WORDS = {"ID", "INT_CONST", "FLOAT_CONST", "STRING_CONST"}
# tokens that may follow an operand: a '{...}' group followed by one is an i-tuple literal
_AFTER_OPERAND = {"SEMI", "RPAREN", "RBRACKET", "COMMA", "PLUS", "MINUS", "TIMES", "DIVIDE", "MOD",
                  "LSHIFT", "RSHIFT", "AND", "OR", "XOR", "LAND", "LOR", "EQ", "NE", "LT", "GT", "LE",
                  "GE", "QUESTION", "COLON", "ARROW"}  # named, not quoted: "expected identifier before ..."


class ParseError(Exception):
    pass


def _start(node: A.Node):
    """Where an expression starts: `a` in `a.at(i)` (a Member's own loc is its name) and
    in `a[i]`."""
    while isinstance(node, (A.Call, A.Member, A.SpanDerive)):
        node = node.func if isinstance(node, A.Call) else node.base
    return node.loc


def _extend(p) -> list:
    """``x_list : x | x_list COMMA x``: appends in place, so a list of n items costs O(n)
    (copying the list at each item made long lists quadratic)."""
    if len(p) == 2:
        return [p[1]]
    p[1].append(p[3])
    return p[1]


class Grammar:
    """The grammar rules. Kept apart from the driver class so PLY's reflection sees only them."""

    tokens = tokens
    start = "co_unit"
    # the dangling `else` belongs to the nearest `if` (as in C)
    # `after f, g` takes every future of the list: a comma after it continues the list
    # (AFTER_LIST below COMMA makes that shift explicit instead of a reported conflict)
    precedence = (("nonassoc", "LOWER_THAN_ELSE"), ("nonassoc", "ELSE"),
                  ("nonassoc", "AFTER_LIST"), ("left", "COMMA"))

    def __init__(self):
        self.lex: Optional[CroktileLexer] = None
        self.diag: Optional[Diagnostics] = None
        self.last_error_pos = None
        self.cascade_line = None

    # -- helpers ---------------------------------------------------------------
    def _int_lit(self, p, i: int) -> A.IntLit:
        """The INT_CONST at ``i`` as a literal; a C++ constant that is no 'int' carries its
        error to the checker, so that a parse alone (`--dump-ast`) accepts it."""
        return A.IntLit(self._loc(p, i), int(p[i]), problem=getattr(p[i], "problem", None))

    def _int_value(self, p, i: int) -> int:
        """The INT_CONST at ``i`` where the grammar needs a number (not an expression)."""
        problem = getattr(p[i], "problem", None)
        if problem is not None:
            self.diag.error(self._loc(p, i), problem)
            return 0
        return int(p[i])

    def _loc(self, p, i: int) -> Loc:
        return self.lex.loc(p.lineno(i), p.lexpos(i))

    def _node_loc(self, p, i: int) -> Loc:
        value = p[i]
        if isinstance(value, A.Node):
            return value.loc
        return self._loc(p, i)

    # -- top level -------------------------------------------------------------
    def p_co_unit(self, p):
        """co_unit : co_function
                   | PROTOTYPE co_prototype"""
        p[0] = p[len(p) - 1]

    def p_co_prototype(self, p):
        """co_prototype : CO ret_type ID LPAREN param_list_opt RPAREN SEMI"""
        p[0] = A.CoFunction(self._loc(p, 1), p[2], A.Name(self._loc(p, 3), p[3]), p[5], None)

    def p_co_function(self, p):
        """co_function : CO ret_type ID LPAREN param_list_opt RPAREN block"""
        p[0] = A.CoFunction(self._loc(p, 1), p[2], A.Name(self._loc(p, 3), p[3]), p[5], p[7])

    def p_ret_type_word(self, p):
        """ret_type : VOID
                    | INT
                    | BOOL
                    | AUTO
                    | FLOATTYPE"""
        kind = {"void": "void", "int": "int", "bool": "bool", "auto": "auto"}.get(p[1], "float")
        p[0] = A.TypeSpec(self._loc(p, 1), kind, p[1])

    def p_ret_type_spanned(self, p):
        """ret_type : spanned_type"""
        p[0] = p[1]

    def p_spanned_type(self, p):
        """spanned_type : ELEMTYPE span_spec
                        | FLOATTYPE span_spec"""
        shape, rank = p[2]
        elem = FLOAT_ELEMS.get(p[1], p[1])   # `double [M, K] a` (the reference's spelling) is f64 data
        p[0] = A.TypeSpec(self._loc(p, 1), "spanned", elem, shape=shape, rank=rank)

    def p_span_spec_list(self, p):
        """span_spec : LBRACKET dim_list RBRACKET"""
        p[0] = (A.SpanLit(self._loc(p, 1), p[2]), None)

    def p_span_spec_mdspan_list(self, p):
        """span_spec : MDSPAN LBRACKET dim_list RBRACKET"""
        p[0] = (A.SpanLit(self._loc(p, 2), p[3]), None)

    def p_dim_list(self, p):
        """dim_list : dim_item
                    | dim_list COMMA dim_item"""
        p[0] = _extend(p)

    def p_dim_item(self, p):
        """dim_item : expr"""
        p[0] = p[1]

    def p_dim_item_any(self, p):
        """dim_item : QUESTION"""
        p[0] = A.AnyDim(self._loc(p, 1))

    def p_span_spec_rank(self, p):
        """span_spec : MDSPAN LT INT_CONST GT"""
        p[0] = (None, A.IntLit(self._loc(p, 3), self._int_value(p, 3)))

    def p_span_spec_any(self, p):
        """span_spec : MDSPAN"""
        p[0] = (None, None)

    def p_param_list_opt(self, p):
        """param_list_opt :
                          | param_list"""
        p[0] = p[1] if len(p) > 1 else []

    def p_param_list(self, p):
        """param_list : param
                      | param_list COMMA param"""
        p[0] = _extend(p)

    def p_param(self, p):
        """param : spanned_type ID
                 | scalar_type ID"""
        p[0] = A.Param(p[1].loc, p[1], A.Name(self._loc(p, 2), p[2]))

    def p_param_anonymous(self, p):
        """param : spanned_type
                 | scalar_type"""
        p[0] = A.Param(p[1].loc, p[1], A.Name(p[1].loc, ""))

    def p_param_stream(self, p):
        """param : STREAM ID"""
        ty = A.TypeSpec(self._loc(p, 1), "stream", "stream")
        p[0] = A.Param(ty.loc, ty, A.Name(self._loc(p, 2), p[2]))

    def p_param_storage(self, p):
        """param : STORAGE spanned_type ID
                 | STORAGE scalar_type ID"""
        p[0] = A.Param(self._loc(p, 1), p[2], A.Name(self._loc(p, 3), p[3]), storage=p[1])

    def p_scalar_type(self, p):
        """scalar_type : INT
                       | BOOL
                       | FLOATTYPE
                       | ELEMTYPE"""
        kind = {"int": "int", "bool": "bool"}.get(p[1])
        if kind is None:
            kind = "float" if p.slice[1].type == "FLOATTYPE" else "elem"
        p[0] = A.TypeSpec(self._loc(p, 1), kind, p[1])

    # -- statements ------------------------------------------------------------
    def p_block(self, p):
        """block : LBRACE stmt_list RBRACE
                 | LBRACE RBRACE"""
        p[0] = A.Block(self._loc(p, 1), p[2] if len(p) == 4 else [])

    def p_stmt_list(self, p):
        """stmt_list : stmt
                     | stmt_list stmt"""
        items, stmt = ([], p[1]) if len(p) == 2 else (p[1], p[2])
        if isinstance(stmt, list):
            items.extend(stmt)
        elif stmt is not None:
            items.append(stmt)
        p[0] = items

    def p_stmt(self, p):
        """stmt : block
                | data_decl
                | scalar_decl
                | span_def
                | tuple_def
                | assign
                | expr_stmt
                | call_stmt
                | wait_stmt
                | event_decl
                | trigger_stmt
                | return_stmt
                | parallel_stmt
                | inthreads_stmt
                | with_stmt
                | foreach_stmt
                | if_stmt
                | while_stmt
                | jump_stmt
                | print_stmt
                | elem_assign
                | swap_stmt
                | mma_stmt
                | frag_decl"""
        p[0] = p[1]

    # `swap f, g;` and `rotate f, g, h;` without parentheses (the reference's forms): the
    # same call as `swap(f, g);`. `swap`/`rotate` stay names, not keywords.
    def p_swap_stmt(self, p):
        """swap_stmt : ID ID COMMA id_list SEMI"""
        if p[1] not in ("swap", "rotate"):
            self.diag.error(self._loc(p, 2), f"expected ';' before '{p[2]}'")
            p[0] = None
            return
        names = [A.Name(self._loc(p, 2), p[2])] + p[4]
        call = A.Call(self._loc(p, 1), A.Name(self._loc(p, 1), p[1]), names)
        p[0] = A.ExprStmt(self._loc(p, 1), call)

    def p_stmt_empty(self, p):
        """stmt : SEMI"""
        p[0] = A.EmptyStmt(self._loc(p, 1))

    def p_stmt_error(self, p):
        """stmt : error SEMI
                | error block"""
        p[0] = None
        self.parser.errok()  # resynchronised at a statement boundary: report the next error

    def p_data_decl(self, p):
        """data_decl : ELEMTYPE span_spec data_declarator_list SEMI
                     | FLOATTYPE span_spec data_declarator_list SEMI
                     | STORAGE ELEMTYPE span_spec data_declarator_list SEMI
                     | STORAGE FLOATTYPE span_spec data_declarator_list SEMI"""
        if len(p) == 5:
            storage, at, spec, names = None, 1, p[2], p[3]
        else:
            storage, at, spec, names = p[1], 2, p[3], p[4]
        shape, rank = spec
        ty = A.TypeSpec(self._loc(p, at), "spanned", FLOAT_ELEMS.get(p[at], p[at]), shape=shape, rank=rank)
        p[0] = A.DataDecl(self._loc(p, 1), storage, ty, names)

    def p_data_declarator_list(self, p):
        """data_declarator_list : data_declarator
                                | data_declarator_list COMMA data_declarator"""
        p[0] = _extend(p)

    def p_data_declarator(self, p):
        """data_declarator : ID array_dims_opt
                           | ID array_dims_opt LBRACE expr RBRACE"""
        p[0] = A.Declarator(self._loc(p, 1), p[1], p[2], p[4] if len(p) == 6 else None)

    def p_array_dims_opt(self, p):
        """array_dims_opt :
                          | array_dims_opt LBRACKET expr RBRACKET"""
        if len(p) == 1:
            p[0] = []
        else:
            p[1].append(p[3])
            p[0] = p[1]

    def p_scalar_decl(self, p):
        """scalar_decl : scalar_type declarator_list SEMI
                       | MUTABLE scalar_type declarator_list SEMI
                       | MUTABLE declarator_list SEMI"""
        mutable = p[1] == "mutable"
        ty = p[2] if mutable and len(p) == 5 else (None if mutable else p[1])
        decls = []   # `int a = 1, b = 2;` declares one after the other, in the enclosing scope
        for name, init in p[len(p) - 2]:
            decls.append(A.ScalarDecl(ty.loc if ty is not None else self._loc(p, 1), ty, name, init, mutable))
        p[0] = decls

    def p_declarator_list(self, p):
        """declarator_list : declarator
                           | declarator_list COMMA declarator"""
        p[0] = _extend(p)

    def p_declarator(self, p):
        """declarator : ID
                      | ID EQUALS init
                      | ID LBRACE expr RBRACE"""
        p[0] = (A.Name(self._loc(p, 1), p[1]), p[3] if len(p) > 2 else None)

    def p_compound_assign(self, p):
        """assign : ID PLUSEQ expr SEMI
                  | ID MINUSEQ expr SEMI
                  | ID TIMESEQ expr SEMI
                  | ID DIVEQ expr SEMI
                  | ID MODEQ expr SEMI"""
        target = A.Name(self._loc(p, 1), p[1])
        value = A.BinOp(self._loc(p, 2), p[2][0], A.Name(self._loc(p, 1), p[1]), p[3])
        p[0] = A.Assign(self._loc(p, 1), target, value)

    def p_if_stmt(self, p):
        """if_stmt : IF LPAREN expr RPAREN stmt %prec LOWER_THAN_ELSE
                   | IF LPAREN expr RPAREN stmt ELSE stmt"""
        p[0] = A.IfStmt(self._loc(p, 1), p[3], self._body(p, 5), self._body(p, 7) if len(p) == 8 else None)

    def p_while_stmt(self, p):
        """while_stmt : WHILE LPAREN expr RPAREN stmt"""
        p[0] = A.WhileStmt(self._loc(p, 1), p[3], self._body(p, 5))

    def _body(self, p, i: int) -> A.Block:
        """A branch or loop body: a single statement is a block of one (its own scope)."""
        stmt = p[i]
        if isinstance(stmt, A.Block):
            return stmt
        stmts = stmt if isinstance(stmt, list) else [stmt] if stmt is not None else []
        return A.Block(stmts[0].loc if stmts else self._loc(p, i - 1), stmts)

    def p_jump_stmt(self, p):
        """jump_stmt : BREAK SEMI
                     | CONTINUE SEMI"""
        p[0] = (A.BreakStmt if p[1] == "break" else A.ContinueStmt)(self._loc(p, 1))

    def p_print_stmt(self, p):
        """print_stmt : ID LNOT LPAREN arg_list_opt RPAREN SEMI"""
        p[0] = A.PrintStmt(self._loc(p, 1), p[1] == "println", True, p[4])
        p[0].word = p[1]

    def p_span_def(self, p):
        """span_def : ID COLON expr SEMI"""
        p[0] = A.SpanDef(self._loc(p, 1), A.Name(self._loc(p, 1), p[1]), None, False, p[3])

    def p_span_def_annotated(self, p):
        """span_def : MDSPAN ID COLON expr SEMI
                    | MDSPAN LT INT_CONST GT ID COLON expr SEMI"""
        if len(p) == 6:
            p[0] = A.SpanDef(self._loc(p, 1), A.Name(self._loc(p, 2), p[2]), None, True, p[4])
        else:
            p[0] = A.SpanDef(self._loc(p, 1), A.Name(self._loc(p, 5), p[5]),
                             A.IntLit(self._loc(p, 3), self._int_value(p, 3)), True, p[7])

    def p_tuple_def(self, p):
        """tuple_def : ITUPLE ID EQUALS init SEMI
                     | ITUPLE ID SEMI"""
        p[0] = A.TupleDef(self._loc(p, 1), A.Name(self._loc(p, 2), p[2]), p[4] if len(p) == 6 else None)

    def p_tuple_def_rank(self, p):
        """tuple_def : ITUPLE LT INT_CONST GT ID EQUALS init SEMI
                     | ITUPLE LT INT_CONST GT ID SEMI"""
        p[0] = A.TupleDef(self._loc(p, 1), A.Name(self._loc(p, 5), p[5]), p[7] if len(p) == 9 else None,
                          A.IntLit(self._loc(p, 3), self._int_value(p, 3)))

    def p_assign(self, p):
        """assign : ID EQUALS init SEMI"""
        p[0] = A.Assign(self._loc(p, 1), A.Name(self._loc(p, 1), p[1]), p[3])

    def p_init(self, p):
        """init : expr
                | dma_expr
                | mma_expr"""
        p[0] = p[1]

    def p_init_call(self, p):
        """init : CALL ID template_args_opt LPAREN arg_list_opt RPAREN"""
        # `mutable int a = call f(x);`: the device function's return value (scalars.py)
        p[0] = A.CallStmt(self._loc(p, 1), A.Name(self._loc(p, 2), p[2]), p[3], p[5])

    def p_init_tuple_derive(self, p):
        """init : ID LBRACE expr_list RBRACE"""
        p[0] = A.TupleDerive(self._loc(p, 2), A.Name(self._loc(p, 1), p[1]), p[3])

    def p_dma_expr(self, p):
        """dma_expr : DMA PERIOD ID dma_async dma_config expr ARROW dma_target dma_after"""
        words = p[4]
        config, sparse, config_loc = p[5]
        swizzle = None
        if any(w == "swiz" for w, _ in words) and config is not None and len(config) == 1:
            swizzle, config = config[0], None   # `.swiz<128>`: the config is the swizzle's
        odd = [(w, loc) for w, loc in words if w not in ("async", "swiz")]
        is_async, async_loc = odd[0] if odd else \
            next((("async", loc) for w, loc in words if w == "async"), (False, None))
        p[0] = A.DmaCopy(self._loc(p, 1), p[3], is_async, p[6], p[8], config, sparse, p[9])
        p[0].engine = p[1]
        p[0].swizzle = swizzle
        p[0].op_loc = self._loc(p, 3)
        p[0].async_word = async_loc
        p[0].config_loc = config_loc

    # -- tensor-core operations (frontend/sema/mma/ gives the words their meaning) -----
    def p_mma_expr(self, p):
        """mma_expr : MMA mma_words mma_config expr"""
        words, locs = p[2]
        p[0] = A.MmaOp(self._loc(p, 1), words, [p[4]], p[3], locs)

    def p_mma_stmt(self, p):
        """mma_stmt : MMA mma_words mma_config expr_list SEMI
                    | MMA mma_words SEMI"""
        words, locs = p[2]
        args, config = (p[4], p[3]) if len(p) == 6 else ([], None)
        p[0] = A.MmaOp(self._loc(p, 1), words, args, config, locs)

    def p_mma_words(self, p):
        """mma_words : PERIOD mma_word
                     | mma_words PERIOD mma_word"""
        word, loc = p[len(p) - 1]
        p[0] = ([word], [loc]) if len(p) == 3 else (p[1][0] + [word], p[1][1] + [loc])

    def p_mma_word(self, p):
        """mma_word : ID
                    | ELEMTYPE
                    | FLOATTYPE"""
        p[0] = (p[1], self._loc(p, 1))   # (word, where it is): errors about a word point at it

    def p_mma_config(self, p):
        """mma_config :
                      | LT INT_CONST GT"""
        p[0] = None if len(p) == 1 else self._int_value(p, 2)

    def p_frag_decl(self, p):
        """frag_decl : FRAG ID array_dims_opt LBRACE expr RBRACE SEMI
                     | FRAG PERIOD mma_word ID array_dims_opt LBRACE expr RBRACE SEMI"""
        if len(p) == 8:
            p[0] = A.FragDecl(self._loc(p, 1), None, A.Name(self._loc(p, 2), p[2]), p[3], p[5])
        else:
            p[0] = A.FragDecl(self._loc(p, 1), p[3][0], A.Name(self._loc(p, 4), p[4]), p[5], p[7])

    def p_dma_any(self, p):
        """dma_expr : DMA PERIOD ID"""
        if p[3] != "any":
            self.diag.error(self._loc(p, 3), f"'dma.{p[3]}' needs a source and a destination: "
                                             f"'dma.{p[3]} src => dst'")
        p[0] = A.DmaAny(self._loc(p, 1))

    def p_dma_config(self, p):
        """dma_config :
                      | LT template_arg_list GT
                      | LT INT_CONST COLON INT_CONST GT"""
        if len(p) == 1:
            p[0] = (None, None, None)
        elif len(p) == 4:
            p[0] = (p[2], None, self._loc(p, 1))
        else:
            p[0] = (None, (self._int_value(p, 2), self._int_value(p, 4)), self._loc(p, 1))

    def p_dma_after(self, p):
        """dma_after :
                     | AFTER expr_list %prec AFTER_LIST"""
        p[0] = [] if len(p) == 1 else p[2]

    def p_dma_async(self, p):
        """dma_async :
                     | dma_async PERIOD ID"""
        p[0] = [] if len(p) == 1 else p[1] + [(p[3], self._loc(p, 3))]

    def p_dma_target_storage(self, p):
        """dma_target : STORAGE"""
        p[0] = A.StorageRef(self._loc(p, 1), p[1])

    def p_dma_target_expr(self, p):
        """dma_target : expr"""
        p[0] = p[1]

    def p_expr_stmt(self, p):
        """expr_stmt : expr SEMI
                     | dma_expr SEMI"""
        p[0] = A.ExprStmt(self._node_loc(p, 1), p[1])

    def p_call_stmt(self, p):
        """call_stmt : CALL ID template_args_opt LPAREN arg_list_opt RPAREN SEMI"""
        p[0] = A.CallStmt(self._loc(p, 1), A.Name(self._loc(p, 2), p[2]), p[3], p[5])

    def p_template_args_opt(self, p):
        """template_args_opt :
                             | LT GT
                             | LT template_arg_list GT"""
        if len(p) == 1:
            p[0] = None
        elif len(p) == 3:
            p[0] = []
        else:
            p[0] = p[2]

    def p_template_arg_list(self, p):
        """template_arg_list : shift_expr
                             | template_arg_list COMMA shift_expr"""
        p[0] = _extend(p)

    def p_wait_stmt(self, p):
        """wait_stmt : WAIT expr_list SEMI"""
        p[0] = A.WaitStmt(self._loc(p, 1), p[2])

    def p_event_decl(self, p):
        """event_decl : EVENT event_declarators SEMI
                      | STORAGE EVENT event_declarators SEMI"""
        storage, items = (None, p[2]) if len(p) == 4 else (p[1], p[3])
        p[0] = A.EventDecl(self._loc(p, 1), storage, [n for n, _ in items], [d for _, d in items])

    def p_event_declarators(self, p):
        """event_declarators : event_declarator
                             | event_declarators COMMA event_declarator"""
        p[0] = _extend(p)

    def p_event_declarator(self, p):
        """event_declarator : ID
                            | event_declarator LBRACKET expr RBRACKET"""
        if len(p) == 2:
            p[0] = (A.Name(self._loc(p, 1), p[1]), [])
        else:
            p[1][1].append(p[3])
            p[0] = p[1]

    def p_trigger_stmt(self, p):
        """trigger_stmt : TRIGGER expr_list SEMI"""
        p[0] = A.TriggerStmt(self._loc(p, 1), p[2])

    def p_return_stmt(self, p):
        """return_stmt : RETURN SEMI
                       | RETURN expr SEMI"""
        p[0] = A.ReturnStmt(self._loc(p, 1), p[2] if len(p) == 4 else None)

    # `parallel[.async] p by 2, {x, y} by [4, 8] : thread BODY`: each comma-separated
    # level nests in the one before it (parallel_levels.py checks the levels)
    def p_parallel_stmt(self, p):
        """parallel_stmt : PARALLEL async_opt pb_level_list body"""
        levels, body = p[3], p[4]
        for level in reversed(levels):
            level.body = body
            body = A.Block(level.loc, [level])
        levels[0].loc = self._loc(p, 1)
        levels[0].is_async, levels[0].async_loc = p[2]
        p[0] = levels[0]

    def p_async_opt(self, p):
        """async_opt :
                     | PERIOD ID"""
        if len(p) == 1:
            p[0] = (False, None)
            return
        if p[2] != "async":
            self.diag.error(self._loc(p, 2), f"expected 'async' after '.', not '{p[2]}'")
        p[0] = (True, self._loc(p, 2))

    def p_pb_level_list(self, p):
        """pb_level_list : pb_level
                         | pb_level_list COMMA pb_level"""
        p[0] = _extend(p)

    def p_pb_level(self, p):
        """pb_level : pb_names BY expr pb_anno"""
        name, elements, loc = p[1]
        p[0] = A.ParallelStmt(loc or self._loc(p, 2), name, p[3], None, elements=elements, anno=p[4])

    def p_pb_names(self, p):
        """pb_names :
                    | ID
                    | LBRACE id_list RBRACE
                    | ID EQUALS LBRACE id_list RBRACE"""
        if len(p) == 1:
            p[0] = (None, None, None)
        elif len(p) == 2:
            p[0] = (A.Name(self._loc(p, 1), p[1]), None, self._loc(p, 1))
        elif len(p) == 4:
            p[0] = (None, p[2], self._loc(p, 1))
        else:
            p[0] = (A.Name(self._loc(p, 1), p[1]), p[4], self._loc(p, 1))

    def p_pb_anno(self, p):
        """pb_anno :
                   | COLON ID
                   | COLON ID MINUS INT_CONST"""
        if len(p) == 1:
            p[0] = None
        elif len(p) == 3:
            p[0] = A.Name(self._loc(p, 2), p[2])
        else:
            p[0] = A.Name(self._loc(p, 2), f"{p[2]}-{self._int_value(p, 4)}")

    def p_inthreads_stmt(self, p):
        """inthreads_stmt : INTHREADS async_opt LPAREN expr RPAREN body"""
        p[0] = A.InThreadsStmt(self._loc(p, 1), p[4], p[6], is_async=p[2][0])

    # The body of `parallel`, `inthreads`, `with` and `foreach`: a block, `;` (empty) or one
    # statement. An expression statement cannot be a body: `parallel by n -x;` would
    # read as `by (n - x)`; nor can `if` (`foreach x if (c) ...` is a masked foreach).
    def p_body(self, p):
        """body : block"""
        p[0] = p[1]

    def p_body_empty(self, p):
        """body : SEMI"""
        p[0] = A.Block(self._loc(p, 1), [])

    def p_body_single(self, p):
        """body : data_decl
                | scalar_decl
                | span_def
                | tuple_def
                | assign
                | call_stmt
                | wait_stmt
                | return_stmt
                | parallel_stmt
                | inthreads_stmt
                | with_stmt
                | foreach_stmt
                | while_stmt
                | jump_stmt
                | print_stmt
                | event_decl
                | trigger_stmt
                | mma_stmt"""
        stmts = p[1] if isinstance(p[1], list) else [p[1]]   # a declaration of several names is several
        p[0] = A.Block(stmts[0].loc, stmts)

    def p_body_dma(self, p):
        """body : dma_expr SEMI"""
        p[0] = A.Block(p[1].loc, [A.ExprStmt(p[1].loc, p[1])])

    # An expression statement led by a name can be a body: an element store or a call
    # (`foreach i in [N] x.at(i) += 1;`, `swap(f, g);`). Its name cannot continue the
    # expression before it, and `ID`, `ID.ID`, `ID(...)` do not start any other statement
    # that an expression could (an assignment `x = v;` is `assign`).
    def p_body_id_expr(self, p):
        """body : id_chain SEMI
                | id_chain assign_op expr SEMI"""
        if len(p) == 3:
            stmt = A.ExprStmt(_start(p[1]), p[1])
        else:
            stmt = A.ElemAssign(_start(p[1]), p[1], p[2], p[3])
        p[0] = A.Block(stmt.loc, [stmt])

    def p_id_chain(self, p):
        """id_chain : ID PERIOD ID
                    | id_chain PERIOD ID"""
        base = A.Name(self._loc(p, 1), p[1]) if isinstance(p[1], str) else p[1]
        p[0] = A.Member(self._loc(p, 3), base, p[3])

    def p_id_chain_call(self, p):
        """id_chain : ID LPAREN arg_list_opt RPAREN
                    | id_chain LPAREN arg_list_opt RPAREN"""
        base = A.Name(self._loc(p, 1), p[1]) if isinstance(p[1], str) else p[1]
        p[0] = A.Call(base.loc, base, p[3])

    def p_elem_assign(self, p):
        """elem_assign : postfix_expr LPAREN arg_list_opt RPAREN assign_op expr SEMI"""
        target = A.Call(p[1].loc, p[1], p[3])
        p[0] = A.ElemAssign(_start(target), target, p[5], p[6])

    def p_elem_assign_indexed(self, p):
        """elem_assign : postfix_expr LBRACKET expr_list RBRACKET assign_op expr SEMI"""
        target = A.SpanDerive(self._loc(p, 2), p[1], p[3])   # `mc[1] += 1.0f;`: a fragment of an array
        p[0] = A.ElemAssign(_start(target), target, p[5], p[6])

    def p_assign_op(self, p):
        """assign_op : EQUALS
                     | PLUSEQ
                     | MINUSEQ
                     | TIMESEQ
                     | DIVEQ
                     | MODEQ
                     | ANDEQ
                     | OREQ
                     | XOREQ
                     | LSHIFTEQ
                     | RSHIFTEQ"""
        p[0] = p[1]

    def p_with_stmt(self, p):
        """with_stmt : WITH binding_list body
                     | WITH binding_list WHERE where_list body"""
        if len(p) == 4:
            p[0] = A.WithStmt(self._loc(p, 1), p[2], [], p[3])
        else:
            p[0] = A.WithStmt(self._loc(p, 1), p[2], p[4], p[5])

    def p_binding_list(self, p):
        """binding_list : binding
                        | binding_list COMMA binding"""
        p[0] = _extend(p)

    def p_binding_name(self, p):
        """binding : ID IN expr"""
        p[0] = A.Binding(self._loc(p, 1), A.Name(self._loc(p, 1), p[1]), None, p[3])

    def p_binding_elements(self, p):
        """binding : LBRACE id_list RBRACE IN expr"""
        p[0] = A.Binding(self._loc(p, 1), None, p[2], p[5])

    def p_binding_both(self, p):
        """binding : ID EQUALS LBRACE id_list RBRACE IN expr"""
        p[0] = A.Binding(self._loc(p, 1), A.Name(self._loc(p, 1), p[1]), p[4], p[7])

    def p_where_list(self, p):
        """where_list : where_item
                      | where_list COMMA where_item"""
        p[0] = _extend(p)

    def p_where_item(self, p):
        """where_item : ID BIND ID"""
        p[0] = A.WhereBind(self._loc(p, 2), A.Name(self._loc(p, 1), p[1]), A.Name(self._loc(p, 3), p[3]))

    def p_foreach_stmt(self, p):
        """foreach_stmt : FOREACH range_list body
                        | FOREACH range_list IF LPAREN expr RPAREN body"""
        if len(p) == 4:
            p[0] = A.ForeachStmt(self._loc(p, 1), p[2], None, p[3])
        else:
            p[0] = A.ForeachStmt(self._loc(p, 1), p[2], p[5], p[7])

    def p_foreach_pipelined(self, p):
        """foreach_stmt : FOREACH range_list loop_annotation body"""
        p[0] = A.ForeachStmt(self._loc(p, 1), p[2], None, p[4], stages=p[3][0], refill=p[3][1])

    def p_loop_annotation(self, p):
        """loop_annotation : COLON ID LPAREN expr RPAREN
                           | COLON ID LPAREN expr COMMA ID RPAREN"""
        # `: pipelined(S)` or `: pipelined(S, end)`, after the loop's variables as `: block`
        # after parallel's (frontend/pipelined_loops.py)
        if p[2] != "pipelined":
            self.diag.error(self._loc(p, 2), f"unknown loop annotation '{p[2]}'; expected 'pipelined(STAGES)'")
        refill = "start"
        if len(p) == 8:
            refill = p[6]
            if refill not in ("start", "end"):
                self.diag.error(self._loc(p, 6), f"'{refill}' is no place to issue a pipelined loop's copies; "
                                                 "expected 'start' or 'end'")
        p[0] = (p[4], refill)

    def p_foreach_in(self, p):
        """foreach_stmt : FOREACH binding_list body
                        | FOREACH binding_list IF LPAREN expr RPAREN body
                        | FOREACH binding_list loop_annotation body"""
        # `foreach i in [N] body` is `with i in [N] { foreach i body }` (each named element
        # of `{x, y} in ...` is iterated, as `foreach x, y`)
        loc = self._loc(p, 1)
        ranges = []
        for b in p[2]:
            for n in ([b.name] if b.name is not None else b.elements):
                ranges.append(A.LoopRange(n.loc, n))
        stages, refill = None, "start"
        if len(p) == 4:
            cond, body = None, p[3]
        elif len(p) == 5:
            cond, body, (stages, refill) = None, p[4], p[3]
        else:
            cond, body = p[5], p[7]
        loop = A.ForeachStmt(loc, ranges, cond, body, stages=stages, refill=refill)
        p[0] = A.WithStmt(loc, p[2], [], A.Block(loc, [loop]))

    def p_range_list(self, p):
        """range_list : range
                      | range_list COMMA range"""
        p[0] = _extend(p)

    def p_range(self, p):
        """range : ID"""
        p[0] = A.LoopRange(self._loc(p, 1), A.Name(self._loc(p, 1), p[1]))

    def p_range_ctl(self, p):
        """range : ID LPAREN bound_opt COLON bound_opt RPAREN
                 | ID LPAREN bound_opt COLON bound_opt COLON bound_opt RPAREN"""
        step = p[7] if len(p) == 9 else None
        p[0] = A.LoopRange(self._loc(p, 1), A.Name(self._loc(p, 1), p[1]), p[3], p[5], step, True)

    def p_bound_opt(self, p):
        """bound_opt :
                     | expr"""
        p[0] = p[1] if len(p) == 2 else None

    def p_id_list(self, p):
        """id_list : ID
                   | id_list COMMA ID"""
        if len(p) == 2:
            p[0] = [A.Name(self._loc(p, 1), p[1])]
        else:
            p[1].append(A.Name(self._loc(p, 3), p[3]))
            p[0] = p[1]

    # -- expressions -----------------------------------------------------------
    def p_expr_list(self, p):
        """expr_list : expr
                     | expr_list COMMA expr"""
        p[0] = _extend(p)

    def p_arg_list_opt(self, p):
        """arg_list_opt :
                        | expr_list"""
        p[0] = p[1] if len(p) == 2 else []

    def p_expr(self, p):
        """expr : cond_expr"""
        p[0] = p[1]

    def p_cond_expr(self, p):
        """cond_expr : lor_expr
                     | lor_expr QUESTION expr COLON cond_expr"""
        p[0] = p[1] if len(p) == 2 else A.Ternary(p[1].loc, p[1], p[3], p[5])

    def p_binary(self, p):
        """lor_expr : lor_expr LOR land_expr
                    | land_expr
           land_expr : land_expr LAND bor_expr
                     | bor_expr
           bor_expr : bor_expr OR bxor_expr
                    | bxor_expr
           bxor_expr : bxor_expr XOR band_expr
                     | band_expr
           band_expr : band_expr AND eq_expr
                     | eq_expr
           eq_expr : eq_expr EQ rel_expr
                   | eq_expr NE rel_expr
                   | rel_expr
           rel_expr : rel_expr LT shift_expr
                    | rel_expr GT shift_expr
                    | rel_expr LE shift_expr
                    | rel_expr GE shift_expr
                    | shift_expr
           shift_expr : shift_expr LSHIFT add_expr
                      | shift_expr RSHIFT add_expr
                      | add_expr
           add_expr : add_expr PLUS mul_expr
                    | add_expr MINUS mul_expr
                    | mul_expr
           mul_expr : mul_expr TIMES compose_expr
                    | mul_expr DIVIDE compose_expr
                    | mul_expr MOD compose_expr
                    | compose_expr
           compose_expr : compose_expr HASH unary_expr
                        | unary_expr"""
        if len(p) == 2:
            p[0] = p[1]
        else:
            op_loc = self._loc(p, 2)
            p[0] = A.BinOp(op_loc, p[2], p[1], p[3])

    def p_unary(self, p):
        """unary_expr : postfix_expr
                      | MINUS unary_expr
                      | PLUS unary_expr
                      | LNOT unary_expr
                      | NOT unary_expr
                      | HASH unary_expr
                      | AND unary_expr"""
        if len(p) == 2:
            p[0] = p[1]
        elif p[1] == "#":
            p[0] = A.UpperBound(self._loc(p, 1), p[2])
        else:
            p[0] = A.UnOp(self._loc(p, 1), p[1], p[2])

    def p_postfix_member(self, p):
        """postfix_expr : postfix_expr PERIOD ID"""
        p[0] = A.Member(self._loc(p, 3), p[1], p[3])

    def p_postfix_call(self, p):
        """postfix_expr : postfix_expr LPAREN arg_list_opt RPAREN"""
        p[0] = A.Call(p[1].loc, p[1], p[3])

    def p_postfix_call_strided(self, p):
        """postfix_expr : postfix_expr LPAREN expr_list COLON expr_list RPAREN"""
        p[0] = A.Call(p[1].loc, p[1], p[3], strides=p[5])

    def p_postfix_derive(self, p):
        """postfix_expr : postfix_expr LBRACKET expr_list RBRACKET"""
        p[0] = A.SpanDerive(self._loc(p, 2), p[1], p[3])

    def p_postfix_primary(self, p):
        """postfix_expr : primary_expr"""
        p[0] = p[1]

    def p_primary_id(self, p):
        """primary_expr : ID"""
        p[0] = A.Name(self._loc(p, 1), p[1])

    def p_primary_int(self, p):
        """primary_expr : INT_CONST"""
        p[0] = self._int_lit(p, 1)

    def p_primary_float(self, p):
        """primary_expr : FLOAT_CONST"""
        p[0] = A.FloatLit(self._loc(p, 1), p[1])

    def p_primary_string(self, p):
        """primary_expr : STRING_CONST"""
        p[0] = A.StringLit(self._loc(p, 1), p[1])

    def p_primary_bool(self, p):
        """primary_expr : TRUE
                        | FALSE"""
        p[0] = A.BoolLit(self._loc(p, 1), p[1] == "true")

    def p_primary_wildcard(self, p):
        """primary_expr : UNDERSCORE"""
        p[0] = A.Wildcard(self._loc(p, 1))

    def p_primary_paren(self, p):
        """primary_expr : LPAREN expr RPAREN"""
        inner = p[2]
        if isinstance(inner, A.IntLit):
            inner = A.IntLit(self._loc(p, 1), inner.value, parenthesized=True, problem=inner.problem)
        p[0] = inner

    def p_primary_span(self, p):
        """primary_expr : LBRACKET expr_list RBRACKET"""
        p[0] = A.SpanLit(self._loc(p, 1), p[2])

    def p_primary_tuple(self, p):
        """primary_expr : LBRACE expr_list RBRACE"""
        p[0] = A.TupleLit(self._loc(p, 1), p[2])

    def p_primary_sizeof(self, p):
        """primary_expr : OR postfix_expr OR"""
        p[0] = A.SizeOf(self._loc(p, 1), p[2])

    # -- errors ----------------------------------------------------------------
    def p_error(self, tok):
        if tok is None:
            self.diag.error(self.end_loc, "expected '}' at end of input")
            return None
        if self.last_error_pos == tok.lexpos or getattr(tok, "virtual", False):
            return None
        where = (self.lex.filename, tok.lineno)
        if where == self.cascade_line:  # panic-mode recovery of an error on this line: follow-on noise
            return self._recover(tok)
        self.last_error_pos = tok.lexpos
        misspelt = self._misspelt_keyword(tok)
        if misspelt is not None:   # reported at the word, not where the grammar noticed it
            word_loc, word, meant = misspelt
            what = "type name" if KEYWORDS[meant] in _TYPE_WORDS else "keyword"
            self.diag.error(word_loc, f"unknown {what} '{word}'; did you mean '{meant}'?")
            self.cascade_line = where
            return self._recover(tok)
        loc = self.lex.loc(tok.lineno, tok.lexpos)
        shown = self.lex.spelling(tok)
        acceptable = self._acceptable()
        prev = self.lex.prev_token
        # where a statement body may start (`parallel p by 4 )`), a ';' is one choice of many
        body_expected = {"SEMI", "LBRACE", "PARALLEL"} <= acceptable
        if "SEMI" in acceptable and prev is not None and prev is not tok and not body_expected:
            # gcc-style: the ';' is missing right after the previous token; insert it and
            # go on, so the rest of the function is parsed (and checked for errors) as usual
            self.diag.error(self.lex.end_loc(prev), f"expected ';' before '{shown}'")
            self.cascade_line = None
            return self._insert_token(tok, prev, "SEMI", ";")
        self.cascade_line = where
        opener = self.lex.innermost_open(tok)
        if opener is not None and _CLOSER[opener.type] not in acceptable:
            opener = None
        if getattr(tok, "extraneous", False):
            opener = None
            self.diag.error(loc, f"extraneous '{shown}'")
        elif getattr(tok, "mismatched", None) is not None:
            opener = tok.mismatched  # `{ ... )`: the closer the opener needs, as clang words it
            self.diag.error(loc, f"expected '{_SPELLING[_CLOSER[opener.type]]}' before '{shown}'")
        else:
            self._expected_message(loc, shown, acceptable)
        if opener is not None:
            self.diag.note(self.lex.loc(opener.lineno, opener.lexpos), f"to match this '{opener.value}'")
        return self._recover(tok)

    def _misspelt_keyword(self, tok):
        """(location, word, keyword) where the statement in error starts with a word near a
        keyword that may start it (`paralel p by 6 {`, `retrun out;`, `iff (x) {`,
        `dam.copy a => b;`), else None. Only a word followed as a keyword is (by a name, a
        type, `(`, `.`) counts: `width = a b;` is about a variable."""
        stack = list(getattr(self.parser, "statestack", None) or [])
        symbols = list(getattr(self.parser, "symstack", None) or [])
        goto = self.parser.goto
        # the current statement's first symbol: the innermost one shifted where a statement starts
        j = next((j for j in range(len(symbols) - 1, 0, -1) if "stmt" in goto.get(stack[j - 1], {})), None)
        if j is None:
            return None
        head, node = symbols[j], getattr(symbols[j], "value", None)
        if isinstance(node, (A.Call, A.Member)):   # reduced already: `iff (x)`, `dam.copy`
            inner = node.func if isinstance(node, A.Call) else node.base
            if isinstance(inner, A.Member) and isinstance(node, A.Call):
                inner = inner.base   # `dam.copy(...)`
            if not isinstance(inner, A.Name):
                return None
            word, loc = inner.name, inner.loc
        else:   # the word itself (ID), or as an expression (a Name), with what follows it
            after = symbols[j + 1] if j + 1 < len(symbols) else tok
            if getattr(after, "type", None) not in _AFTER_HEAD:
                return None
            if getattr(head, "type", None) == "ID" and isinstance(node, str):
                word, loc = node, self.lex.loc(head.lineno, head.lexpos)
            elif isinstance(node, A.Name):
                word, loc = node.name, node.loc
            else:
                return None
        meant = did_you_mean(word, [w for w in _HEAD_WORDS if self._shifts(stack[:j], KEYWORDS[w])])
        return (loc, word, meant) if meant is not None else None

    def _recover(self, tok):
        """After a reported error: an unexpected i-tuple literal is deleted and parsing goes
        on after it; otherwise PLY skips to the next ';' or block (``lexer.recovering``
        keeps it from taking a '{' of an i-tuple on the way for a block)."""
        if tok.type == "LBRACE":
            group = [tok]
            depth = 1
            while depth:
                nxt = self.lex.token()
                if nxt is None:
                    break
                group.append(nxt)
                depth += {"LBRACE": 1, "RBRACE": -1}.get(nxt.type, 0)
            after = self.lex.token() if depth == 0 else None
            if after is not None and after.type in _AFTER_OPERAND:
                self.parser.errok()
                return after
            for t in reversed(group[1:] + ([after] if after is not None else [])):
                self.lex.push_back(t)
        self.lex.recovering = True
        return None

    def _expected_message(self, loc: Loc, shown: str, acceptable: set) -> None:
        expected = sorted(acceptable)
        if expected and len(expected) <= 3:
            want = " or ".join(_SPELLING[e] if e in _WORDS else f"'{_SPELLING.get(e, e.lower())}'"
                               for e in expected)
            self.diag.error(loc, f"expected {want} before '{shown}'")
        elif {"ID", "INT_CONST"} <= acceptable:
            self.diag.error(loc, f"expected expression before '{shown}'")
        elif "LBRACE" in acceptable:
            self.diag.error(loc, f"expected '{{' before '{shown}'")
        elif "RPAREN" in acceptable:
            self.diag.error(loc, f"expected ')' before '{shown}'")
        elif "RBRACKET" in acceptable:
            self.diag.error(loc, f"expected ']' before '{shown}'")
        elif "RBRACE" in acceptable:
            self.diag.error(loc, f"expected '}}' before '{shown}'")
        else:
            self.diag.error(loc, f"syntax error before '{shown}'")

    def _insert_token(self, tok, prev, type_: str, value: str):
        """Error recovery by insertion: ``type_`` becomes the lookahead, ``tok`` follows it."""
        virt = ply.lex.LexToken()
        virt.type, virt.value = type_, value
        virt.lineno, virt.lexpos = prev.lineno, getattr(prev, "endlexpos", prev.lexpos)
        virt.endlexpos = virt.lexpos
        virt.virtual = True
        self.lex.push_back(tok)
        self.lex.last_token = virt
        self.parser.errok()
        return virt

    def _acceptable(self) -> set:
        """Tokens that the parser, in its current state, would really shift.

        LALR tables reduce on lookaheads that can fail later (states are shared between
        contexts), so each candidate is checked by running the reductions on a copy of
        the state stack until the token is shifted or rejected.
        """
        stack = list(getattr(self.parser, "statestack", None) or [])
        if not stack:
            return set()
        row = self.parser.action.get(stack[-1], {})
        return {t for t in row if t not in ("error", "$end") and self._shifts(stack, t)}

    def _shifts(self, stack: list, tok: str) -> bool:
        stack = list(stack)
        action, goto, prods = self.parser.action, self.parser.goto, self.parser.productions
        for _ in range(1000):
            act = action.get(stack[-1], {}).get(tok)
            if act is None:
                return False
            if act >= 0:
                return True
            prod = prods[-act]
            if prod.len:
                del stack[-prod.len:]
            nxt = goto.get(stack[-1], {}).get(prod.name)
            if nxt is None:
                return False
            stack.append(nxt)
        return False


class CroktileParser:
    """Parses the text of one ``__co__`` function into a ``CoFunction``."""

    def __init__(self, diag: Diagnostics):
        self.grammar = Grammar()
        self.grammar.diag = diag
        self.lexer = CroktileLexer().build()
        self.lexer.on_error = self._lex_error
        self.grammar.lex = self.lexer
        self.grammar.parser = _load_tables(self.grammar)

    def _lex_error(self, exc: LexError) -> None:
        self.grammar.diag.error(exc.loc, exc.msg)
        # syntax errors the dropped character causes on its line are follow-on noise
        self.grammar.cascade_line = (exc.loc.file, exc.loc.line)

    def parse(self, text: str, filename: str, line: int, col: int, end_loc: Loc,
              prototype: bool = False) -> Optional[A.CoFunction]:
        """A ``__co__`` function, or with ``prototype`` its declaration (`...(params);`,
        a CoFunction without a body): its head is checked as a definition's is."""
        self.lexer.input(text, filename, line, col)
        if prototype:
            mark = ply.lex.LexToken()
            mark.type, mark.value, mark.lineno, mark.lexpos = "PROTOTYPE", "", line, 0
            mark.virtual = True
            self.lexer.push_back(mark)
        self.grammar.last_error_pos = None
        self.grammar.cascade_line = None
        self.grammar.end_loc = end_loc
        try:
            return self.grammar.parser.parse(lexer=self.lexer)
        except LexError as exc:
            self.grammar.diag.error(exc.loc, exc.msg)
            return None


_first_parser = None   # the first LALR parser of the process, whose tables later ones share


def _load_tables(grammar: Grammar):
    """The LALR parser of ``grammar``'s rules, never writing any file. The first one of a
    process is built from the shipped tables (PLY reflects on the rules and checks that the
    tables were made from them); later ones share its tables, with the rules' actions bound
    to their own grammar object (a warm compile server's runs, several parsers in one
    process)."""
    global _first_parser
    if _first_parser is None:
        _first_parser = ply.yacc.yacc(module=grammar, tabmodule=TABLE_MODULE, write_tables=False,
                                      debug=False, errorlog=ply.yacc.NullLogger())
        return _first_parser
    parser = copy.copy(_first_parser)
    parser.productions = [_bound(prod, grammar) for prod in _first_parser.productions]
    parser.errorfunc = grammar.p_error
    return parser


def _bound(prod, grammar: Grammar):
    """A copy of the production ``prod`` whose action is ``grammar``'s."""
    mine = object.__new__(type(prod))
    mine.__dict__.update(prod.__dict__)
    if prod.func:
        mine.callable = getattr(grammar, prod.func)
    return mine


def grammar_signature() -> str:
    """The signature PLY stamps into tables generated from this grammar."""
    grammar = Grammar()
    pdict = {name: getattr(grammar, name) for name in dir(grammar)}
    pinfo = ply.yacc.ParserReflect(pdict, log=ply.yacc.NullLogger())
    pinfo.get_all()
    return pinfo.signature()


def tables_are_current() -> bool:
    """True when the shipped ``_parsetab`` was generated from this grammar."""
    try:
        from . import _parsetab  # type: ignore
    except ImportError:
        return False
    return _parsetab._lr_signature == grammar_signature()


def write_tables(outdir: str) -> None:
    """Writes ``_parsetab.py`` into outdir, even where an installed copy already exists.

    PLY reuses any importable table module of the given name instead of writing one,
    so the tables are generated under a name nothing can import, then renamed.
    """
    import os
    scratch = "_parsetab_generating"
    ply.yacc.yacc(module=Grammar(), tabmodule=scratch, outputdir=outdir,
                  write_tables=True, debug=False, errorlog=ply.yacc.NullLogger())
    os.replace(os.path.join(outdir, scratch + ".py"), os.path.join(outdir, "_parsetab.py"))


def main(argv=None) -> int:
    import argparse   # here: the tables are generated at build time, never in a compile
    ap = argparse.ArgumentParser(description="Generate the Croktile parser tables.")
    ap.add_argument("--write-tables", metavar="DIR", required=True)
    args = ap.parse_args(argv)
    write_tables(args.write_tables)
    return 0


if __name__ == "__main__":
    sys.exit(main())
