"""Names OpenCL C reserves, and the user's declarations that collide with them (renamed
with a prefix in the device program)."""
from __future__ import annotations

import re
from typing import List, Set

from ...frontend.splitter import Scanner
from ...codegen.cok_blocks import masked_text


# Names OpenCL C reserves that are ordinary identifiers in C and C++: keywords (address
# space, function and access qualifiers, `half`, image types, ...) and the built-in type
# names (vector types, uint, size_t, ...). One that __cok__ code declares (spec 1 calls a
# function `kernel`) or that tileflow code names is renamed in the device program.
_VECTOR_BASES = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double", "half",
                 "bool", "quad")


OPENCL_RESERVED = frozenset(
    ("global", "local", "constant", "private", "generic", "kernel", "read_only", "write_only", "read_write",
     "uniform", "pipe", "restrict", "vec_step", "half", "quad", "uchar", "ushort", "uint", "ulong",
     "size_t", "ptrdiff_t", "intptr_t", "uintptr_t", "event_t", "sampler_t", "image1d_t", "image1d_array_t",
     "image1d_buffer_t", "image2d_t", "image2d_array_t", "image2d_depth_t", "image2d_array_depth_t",
     "image2d_msaa_t", "image2d_array_msaa_t", "image2d_msaa_depth_t", "image2d_array_msaa_depth_t",
     "image3d_t")
    + tuple(f"{base}{n}" for base in _VECTOR_BASES for n in (2, 3, 4, 8, 16)))


RENAMED_PREFIX = "croktile_cl_"


# Tokens after which a reserved name in __cok__ code is being declared (int half = ...,
# void kernel(...), struct float2 {...}), and the words before it that make it a use instead.
_DECLARATOR_END = frozenset(("=", ";", ",", ")", "[", "(", "{", "}", ":", ">"))


_NOT_A_TYPE = frozenset(("return", "case", "sizeof", "else", "do", "goto"))


_ADDRESS_QUALIFIER = re.compile(r"\b(?:__)?(?:global|local|private|constant)\b")


SPACE_QUALIFIER = {"g": "__global", "l": "__local", "p": "__private"}


_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|->|&&|\|\||::|\S")


def _code_tokens(text: str) -> List[str]:
    """The tokens of C code, without comments, literals and preprocessor lines."""
    masked = masked_text(text)
    scan = Scanner(masked)
    tokens, i = [], 0
    while i < len(masked):
        j = scan.skip_literal_or_comment(i)
        if j != i:
            tokens.append('""')
            i = j
            continue
        m = _TOKEN.match(masked, i)
        if m is None:
            i += 1
            continue
        tokens.append(m.group())
        i = m.end()
    return tokens


def declared_reserved_names(segments) -> Set[str]:
    """Names OpenCL C reserves that the __cok__ code declares (a variable, parameter,
    function, type, member or enumerator): each is renamed, every use with it. A reserved
    name the code only uses is left alone: OpenCL C code may mean the keyword or type."""
    found: Set[str] = set()
    for seg in segments:
        if seg.kind != "cok":
            continue
        tokens = _code_tokens(seg.text)
        for k in range(1, len(tokens) - 1):
            name, before, after = tokens[k], tokens[k - 1], tokens[k + 1]
            if name in OPENCL_RESERVED and after in _DECLARATOR_END and (
                    before in ("*", "&", "&&", ",", "{", "}") or (before[0].isalpha() or before[0] == "_")
                    and before not in _NOT_A_TYPE):
                found.add(name)
    return found


def reserved_words(code: str) -> Set[str]:
    """Reserved names in generated kernel code: there they can only be tileflow names."""
    return {w for w in re.findall(r"[A-Za-z_]\w*", code) if w in OPENCL_RESERVED}
