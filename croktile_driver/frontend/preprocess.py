"""Stage 1: the C preprocessor over the whole ``.co.cpp`` file, via pcpp.

Macros and ``#if`` apply to ``__co__`` code as to C++. ``#include`` lines, and
``#if`` blocks that test macros we cannot know (``__CUDACC__``, ``__cplusplus``),
pass through untouched for the target compiler; ``#define`` lines are executed and
also kept, so headers included later still see them. ``#line`` markers keep every
position pointing into the user's file.
"""
from __future__ import annotations

import io
import re
from typing import Iterable, List, Optional, Tuple

from ..diagnostics import Diagnostics, Loc

# Directives that change what the text means; without them (and without -D/-U)
# preprocessing is the identity and pcpp need not even be imported.
_ACTIVE_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(?!include\b|pragma\b|line\b|\d)\w", re.M)


def needs_preprocessing(text: str, defines: Iterable, undefines: Iterable) -> bool:
    return bool(list(defines) or list(undefines) or _ACTIVE_DIRECTIVE.search(text)
                or "__LINE__" in text or "__FILE__" in text)


def preprocess(text: str, filename: str, diag: Diagnostics,
               defines: List[Tuple[str, Optional[str]]] = (),
               undefines: List[str] = (), include_dirs: List[str] = ()) -> str:
    """Returns the preprocessed text, starting with a ``#line 1 "file"`` marker."""
    if not needs_preprocessing(text, defines, undefines):
        return f'#line 1 "{filename}"\n' + text
    import pcpp  # imported lazily: most files need no macro expansion

    class _Preprocessor(pcpp.Preprocessor):
        def on_error(self, file, line, msg):
            diag.error(Loc(file or filename, line or 1, 1), msg)

        def on_include_not_found(self, is_malformed, is_system_include, curdir, includepath):
            raise pcpp.OutputDirective(pcpp.Action.IgnoreAndPassThrough)

        def on_unknown_macro_in_defined_expr(self, tok):
            return False if tok.value in undefines else None

        def on_unknown_macro_in_expr(self, ident):
            return 0 if ident in undefines else None

        def on_unknown_macro_function_in_expr(self, ident):
            return None

        def on_directive_handle(self, directive, toks, ifpassthru, precedingtoks):
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

    pp = _Preprocessor()
    pp.passthru_includes = re.compile(r".*")
    pp.line_directive = "#line"
    pp.compress = 0
    for d in include_dirs:
        pp.add_path(d)
    for name, value in defines:
        pp.define(f"{name} {value if value is not None else 1}")
    for name in undefines:
        pp.undef(name)
    pp.parse(text, filename)
    out = io.StringIO()
    pp.write(out)
    result = out.getvalue()
    if not result.startswith("#line"):
        result = f'#line 1 "{filename}"\n' + result
    return result
