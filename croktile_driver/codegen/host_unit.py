"""The host translation unit every target writes: the runtime's headers, the user's C++
in order, each compiled function where its ``__co__`` text was."""
from __future__ import annotations

from typing import List

from ..frontend.pipeline import TranslationUnit
from .half_alias import half_alias
from .lean_headers import runtime_defines
from .macro_guard import guarded_head
from .signatures import device_prototype, has_device_form, signature
from .cxx import HOST_API, line_directive, pin_lines, user_lines


def host_translation_unit(tu: TranslationUnit, head: List[str], cok_lines, co_text, api: str = HOST_API) -> str:
    """The generated host source: `head` (a comment line, then the runtime's includes, which
    ``runtime_defines`` come before), then the input's segments in order: host C++ as
    written (after a #line), each `__cok__` block as ``cok_lines(index, segment)`` renders
    it, and the declarations and definitions (``co_text(function)``, both forms) of __co__
    functions."""
    functions = {fn.name: fn for fn in (tu.module.functions if tu.module else [])}
    out = guarded_head(head[:1] + runtime_defines(tu.segments) + head[1:], tu.macros) + half_alias(tu.segments)
    start = len(out)   # the head holds no directive of its own (opencl's holds the device program's, in a string)
    device_declared = set()
    for si, seg in enumerate(tu.segments):
        if seg.kind == "host":
            if not seg.text.startswith("#line"):
                out.append(line_directive(seg.loc))
            out.append(seg.text)
        elif seg.kind == "cok":
            out.extend(cok_lines(si, seg))
        elif seg.kind in ("co_decl", "co") and seg.name in functions:
            fn = functions[seg.name]
            out.append(line_directive(fn.loc))   # the declarations are the function's, not the text before
            if seg.kind == "co_decl":
                out.append(signature(fn) + ";")
            # the stream's default argument goes on the first declaration only
            if has_device_form(fn) and fn.name not in device_declared:
                device_declared.add(fn.name)
                out.append(device_prototype(fn, api))
            if seg.kind == "co":
                out.extend(co_text(inst) for inst in getattr(fn, "instances", ()))
                out.append(co_text(fn))
    body = pin_lines("\n".join(out[start:]), user_lines(tu.preprocessed, tu.filename))
    return "\n".join(out[:start] + [body]) + "\n"
