"""The C++ signatures of a compiled function: its host form, its device-data form (views
and a stream) and the form that writes into a caller's destination; the driver's
header, the Python bindings and every target print them from here."""
from __future__ import annotations

from typing import Optional

from .. import ir
from .cxx import HOST_API, elem_ctype, line_directive


def signature(fn: ir.Function) -> str:
    """The C++ declaration host code calls: spanned views in, owning data out."""
    params = []
    for p in fn.params:
        if p.kind == "data":
            params.append(f"croktile::spanned_view<{elem_ctype(p.elem)}, {p.rank}> {p.name}")
        elif p.kind == "float":
            params.append(f"{p.ctype} {p.name}")
        elif p.kind == "stream":
            params.append(f"croktile::stream {p.name}")
        else:
            params.append(f"{p.kind} {p.name}")
    if fn.ret_kind == "data":
        ret = f"croktile::spanned_data<{elem_ctype(fn.ret_elem)}, {len(fn.ret_shape)}>"
    else:
        ret = fn.ret_kind
    return f"{ret} {fn.name}({', '.join(params)})"


def stream_param(fn: ir.Function) -> Optional[str]:
    """The name of the function's `stream` parameter: its host form runs on that stream."""
    return next((p.name for p in fn.params if p.kind == "stream"), None)


def has_device_form(fn: ir.Function) -> bool:
    """A function with a tensor parameter also gets an overload taking device views; one
    without would have the same parameters as its host form."""
    return any(p.kind == "data" for p in fn.params)


def device_signature(fn: ir.Function, api: str) -> str:
    """The overload that takes device views and a stream and returns device-owned data, in
    the types of the target's device API (`api`: croktile::cuda, croktile::opencl, croktile::host)."""
    params = []
    for p in fn.params:
        if p.kind == "data":
            params.append(f"{api}::device_view<{elem_ctype(p.elem)}, {p.rank}> {p.name}")
        elif p.kind == "float":
            params.append(f"{p.ctype} {p.name}")
        elif p.kind == "stream":   # the trailing stream argument is the one the device form uses
            params.append(f"[[maybe_unused]] {api}::stream {p.name}")
        else:
            params.append(f"{p.kind} {p.name}")
    params.append(f"{api}::stream croktile_stream")
    if fn.ret_kind == "data":
        ret = f"{api}::device_data<{elem_ctype(fn.ret_elem)}, {len(fn.ret_shape)}>"
    else:
        ret = fn.ret_kind
    return f"{ret} {fn.name}({', '.join(params)})"


# The device APIs of targets whose device form of a function returning data has a
# destination-passing overload (the caller's device view instead of new memory).
DESTINATION_APIS = {"croktile::cuda"}


def has_destination_form(fn: ir.Function, api: str) -> bool:
    return fn.ret_kind == "data" and has_device_form(fn) and api in DESTINATION_APIS


def result_view(fn: ir.Function, api: str) -> str:
    return f"{api}::device_view<{elem_ctype(fn.ret_elem)}, {len(fn.ret_shape)}>"


def destination_signature(fn: ir.Function, api: str) -> str:
    """The destination-passing overload: the device form's parameters, then the view the
    result is written into (`croktile_out`), then the stream; it returns nothing."""
    head = device_signature(fn, api)
    params = head[head.index("(") + 1:head.rindex(f", {api}::stream croktile_stream)")]
    sep = ", " if params else ""
    return f"void {fn.name}({params}{sep}{result_view(fn, api)} croktile_out, {api}::stream croktile_stream)"


def device_prototype(fn: ir.Function, api: str) -> str:
    """The device form's declaration (and its destination-passing overload's), where the
    stream argument gets its default."""
    def with_default(sig: str) -> str:
        return sig.replace(f"{api}::stream croktile_stream)", f"{api}::stream croktile_stream = {api}::stream())") + ";"
    out = with_default(device_signature(fn, api))
    if has_destination_form(fn, api):
        out += "\n" + with_default(destination_signature(fn, api))
    return out


def host_over_device_form(fn: ir.Function, api: str) -> str:
    """The device form on a target whose device memory is host memory (cpu, factor): it
    calls the host form on the same memory; a returned result's memory is adopted."""
    args = []
    for p in fn.params:
        if p.kind == "data":
            args.append(f"croktile::spanned_view<{elem_ctype(p.elem)}, {p.rank}>({p.name}.data(), {p.name}.shape())")
        else:
            args.append(p.name)
    call = f"{fn.name}({', '.join(args)})"
    lines = [line_directive(fn.loc), device_signature(fn, api) + " {"]
    if fn.ret_kind == "data":
        ret = f"{api}::device_data<{elem_ctype(fn.ret_elem)}, {len(fn.ret_shape)}>"
        lines += [f"  auto croktile_result = {call};",
                  "  const auto croktile_shape = croktile_result.shape();",
                  f"  return {ret}::adopt(croktile_result.release(), croktile_shape, croktile_stream);"]
    elif fn.ret_kind == "void":
        lines += ["  (void)croktile_stream;", f"  {call};"]
    else:
        lines += ["  (void)croktile_stream;", f"  return {call};"]
    lines.append("}")
    return "\n".join(lines)


def with_device_form(fn: ir.Function, host_text: str) -> str:
    """A host-memory target's definitions of `fn`: its host form, then the device form over it."""
    return host_text + ("\n" + host_over_device_form(fn, HOST_API) if has_device_form(fn) else "")
