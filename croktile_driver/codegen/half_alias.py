"""`half`, the name the reference's host code uses for CUDA's half type
(`new half[M * K]`, `sizeof(half)`), on the host targets that have no CUDA header.

A global `using half = croktile::f16;` in the runtime header would clash with a program
that declares a `half` of its own (`typedef int half;` in a `__cok__` block), so the
generated translation unit gets the alias instead, and only where the program uses the
name without declaring it.
"""
from __future__ import annotations

import re
from typing import List

_COMMENT_OR_LITERAL = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_TOKEN = re.compile(r"[A-Za-z_]\w*|::|\S")
_DEFINED = re.compile(r"^[ \t]*#[ \t]*(?:define|undef)[ \t]+half\b", re.M)
# tokens after which `half` is a use of a type, not a name being declared
_NOT_A_TYPE = {"const", "volatile", "new", "sizeof", "alignof", "return", "case", "typename", "delete",
               "throw", "else", "do", "static_cast", "reinterpret_cast", "operator", "template"}
_DECLARATOR_END = {";", "(", "=", ",", ")", "[", "{", ":"}


def _declares_or_uses(text: str):
    """(declares `half`, uses `half`) in C++ text."""
    if _DEFINED.search(text):
        return True, True
    code = _COMMENT_OR_LITERAL.sub(" ", text)
    code = re.sub(r"^[ \t]*#[^\n]*", " ", code, flags=re.M)   # #include, #line, #if lines
    tokens = _TOKEN.findall(code)
    uses = False
    for k, tok in enumerate(tokens):
        if tok != "half":
            continue
        uses = True
        before = tokens[k - 1] if k else ";"
        after = tokens[k + 1] if k + 1 < len(tokens) else ";"
        if before in ("struct", "class", "union", "enum", "namespace") or (before == "using" and after == "=") or \
                (after in _DECLARATOR_END and re.match(r"[A-Za-z_]", before) and before not in _NOT_A_TYPE):
            return True, True
    return False, uses


def half_alias(segments) -> List[str]:
    """Lines that give the generated host source `half` as croktile::f16, or none."""
    uses = False
    for seg in segments:
        if seg.kind in ("host", "cok"):
            declared, used = _declares_or_uses(seg.text)
            if declared:
                return []
            uses = uses or used
    if not uses:
        return []
    return ["#if !defined(__CUDACC__) && !defined(__CUDA_FP16_H__) && !defined(CROKTILE_NO_HALF_ALIAS)",
            "using half = croktile::f16;   // CUDA's half, as the program's host code names it",
            "#endif"]
