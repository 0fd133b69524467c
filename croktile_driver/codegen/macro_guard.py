"""The runtime headers shielded from the user's command-line macros.

Kernel engineers size their programs on the command line (`croktilec -DM=4096 -DK=64
gemm.co.cpp`), and such a macro is defined before the generated file includes the
runtime, whose templates name parameters `M`, `K`, `T`, `D`: `-DM=4096` turned
`template <int E, int M, ...>` into a syntax error inside croktile_minifloat.h. The
generated file therefore saves, undefines and restores (`#pragma push_macro`/`pop_macro`,
which g++, clang and nvcc take) each command-line macro whose name the runtime headers
use as an identifier, around its #include lines; the user's code after them sees the
macro as defined. Names that the headers test in `#if`/`#ifdef` lines are the runtime's
configuration (`CROKTILE_REQUIRE_FAST_INSTANCE`, `NDEBUG`) and are left alone.
"""
from __future__ import annotations

import functools
import os
import re
from typing import Iterable, List

from ..paths import runtime_dir

_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
_CONDITIONAL = re.compile(r"^\s*#\s*(?:if|ifdef|ifndef|elif|elifdef|elifndef)\b(.*)$", re.M)


@functools.lru_cache(maxsize=1)
def runtime_identifiers() -> frozenset:
    """Identifiers of the runtime headers' code, less those their conditionals test."""
    used, tested = set(), set()
    folder = runtime_dir()
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".h"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            text = _STRING.sub('""', _COMMENT.sub(" ", f.read()))
        for m in _CONDITIONAL.finditer(text):
            tested.update(_IDENT.findall(m.group(1)))
        used.update(_IDENT.findall(text))
    return frozenset(used - tested)


def guarded_head(head: List[str], macros: Iterable[str]) -> List[str]:
    """`head` (the generated file's first lines) with its #include lines shielded from the
    command-line `macros` that the runtime headers would read as their own names."""
    names = [m for m in dict.fromkeys(macros) if m in runtime_identifiers()] if macros else []
    includes = [i for i, line in enumerate(head) if line.lstrip().startswith("#include")]
    if not names or not includes:
        return list(head)
    first, last = includes[0], includes[-1]
    save = [f'#pragma push_macro("{n}")\n#undef {n}' for n in names]
    restore = [f'#pragma pop_macro("{n}")' for n in names]
    note = "// command-line macros the runtime headers use as names: undefined while they are read"
    return head[:first] + [note] + save + head[first:last + 1] + restore + head[last + 1:]
