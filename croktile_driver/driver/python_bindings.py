"""Python extension modules of __co__ functions (``--python-module``, ``croktile.load``).

From the IR of each host-callable __co__ function this writes a nanobind source that
converts the arguments (any DLPack or buffer-protocol array, Python int/float/bool),
calls the host-array form or, for arrays already in the target's device memory, the
device form, and returns NumPy arrays or DLPack-capable objects; the runtime side is
``runtime/croktile_python.h``. It also writes the module's type stub, and builds
nanobind's own library once per (nanobind version, compiler, flags) into the cache.

nanobind rather than pybind11: its ndarray type speaks DLPack and the buffer protocol
natively (PyTorch, CuPy, JAX, NumPy without copies) and its calls cost less.
"""
from __future__ import annotations

import hashlib
import keyword
import os
import re
import sys
import sysconfig
from typing import List, Optional, Tuple

from ..cstrings import c_string
from .filelock import file_lock
from .. import ir
from ..codegen.signatures import device_prototype, has_destination_form, has_device_form, signature
from ..codegen.cxx import elem_ctype

# the array dtype of each element type, as NumPy (or, for the 8-bit floats, which NumPy
# lacks, PyTorch and DLPack 1.1) names it
DTYPE_NAMES = {"s8": "int8", "s16": "int16", "s32": "int32", "u8": "uint8", "u16": "uint16",
               "u32": "uint32", "f16": "float16", "bf16": "bfloat16", "f32": "float32",
               "f8_e4m3": "float8_e4m3fn", "f8_e5m2": "float8_e5m2"}


def module_name_of(output: str) -> str:
    """A module's name is its file name up to the first dot (Python's rule for extensions)."""
    return os.path.basename(output).split(".", 1)[0]


def valid_module_name(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


def extension_suffix() -> str:
    return sysconfig.get_config_var("EXT_SUFFIX") or ".so"


def _dims_text(shape) -> str:
    # a rank-only parameter's dimensions have generated names (a__dim0): show them as '?'
    return "[" + ", ".join(re.sub(r"\b\w+__dim\d+\b", "?", s.to_c()) for s in shape) + "]"


def declared_type(p: ir.Param) -> str:
    """A parameter's type as the .co.cpp writes it: ``s32 [M, N]``, ``int``, ``float``."""
    if p.kind == "data":
        return f"{p.elem} {_dims_text(p.buffer.shape)}" if p.buffer is not None else f"{p.elem} <{p.rank}>"
    return p.ctype if p.kind == "float" else p.kind


def _where(loc) -> str:
    return f"{loc.file}:{loc.line}:{loc.col}"


def _returns(fn: ir.Function) -> str:
    if fn.ret_kind == "data":
        return f"{fn.ret_elem} {_dims_text(fn.ret_shape)}"
    return fn.ret_kind


def docstring(fn: ir.Function, api: str) -> str:
    """Each parameter's shape and type as written in the .co.cpp, and the result's."""
    lines = [f"__co__ {_returns(fn)} {fn.name}(...), defined at {_where(fn.loc)}.", ""]
    for p in fn.params:
        text = declared_type(p)
        if p.kind == "data":
            text += f": an array of {DTYPE_NAMES.get(p.elem, p.elem)}, rank {p.rank}, compact row-major"
        lines.append(f"{p.name}: {text}")
    if has_device_form(fn):
        lines.append("stream: the CUDA stream for arrays in device memory (default: the caller's current "
                     "stream); ignored otherwise")
    if has_destination_form(fn, api):
        lines.append("out: an array the result is written into (in device memory for device arguments), "
                     "returned instead of new memory")
    if fn.ret_kind == "data":
        lines.append(f"returns: {_returns(fn)} ({DTYPE_NAMES.get(fn.ret_elem, fn.ret_elem)}): a NumPy array for host "
                     "arguments, a DLPack object for device ones")
    elif fn.ret_kind != "void":
        lines.append(f"returns: {fn.ret_kind}")
    return "\n".join(lines)


def _py_type(p: ir.Param) -> str:
    return {"data": "ArrayLike", "int": "int", "bool": "bool", "float": "float"}[p.kind]


def _py_return(fn: ir.Function) -> str:
    return {"data": "Any", "void": "None", "int": "int", "bool": "bool", "float": "float", "double": "float"}[fn.ret_kind]


def _py_signature(fn: ir.Function, api: str) -> str:
    params = [f"{p.name}: {_py_type(p)}" for p in fn.params]
    if has_device_form(fn):
        params += ["*", "stream: Any = None"]
    if has_destination_form(fn, api):
        params += ["out: Any = None"]
    return f"def {fn.name}({', '.join(params)}) -> {_py_return(fn)}"


def _scalar_ctype(p: ir.Param) -> str:
    if p.kind == "int":
        return "int"
    if p.kind == "bool":
        return "bool"
    return "double"


def _scalar_arg(p: ir.Param) -> str:
    if p.kind == "float" and p.ctype not in ("float", "double"):
        return f"static_cast<{p.ctype}>(static_cast<float>({p.name}))"
    if p.kind == "float" and p.ctype == "float":
        return f"static_cast<float>({p.name})"
    return p.name


def _function(fn: ir.Function, api: str) -> List[str]:
    data = [p for p in fn.params if p.kind == "data"]
    device = has_device_form(fn)
    into = has_destination_form(fn, api)
    sig = []
    for p in fn.params:
        sig.append(f"nb::handle {p.name}__obj" if p.kind == "data" else f"{_scalar_ctype(p)} {p.name}")
    if device:
        sig.append("nb::handle croktile__stream_obj")
    if into:
        sig.append("nb::handle croktile__out_obj")
    out = [f"static nb::object croktile_py__{fn.name}({', '.join(sig)}) {{"]
    for p in data:
        out.append(f"  static const py::param_info {p.name}__info{{{c_string(fn.name)}, {c_string(p.name)}, "
                   f"{c_string(_where(p.loc))}, {c_string(declared_type(p))}}};")
        out.append(f"  const py::argument {p.name}__arr({p.name}__obj, {p.name}__info);")
    result = f"{elem_ctype(fn.ret_elem)}, {len(fn.ret_shape)}" if into else ""
    if into:   # out=: the result goes into the caller's array, which the call returns
        out.append(f"  static const py::param_info out__info{{{c_string(fn.name)}, \"out\", "
                   f"{c_string(_where(fn.loc))}, {c_string(_returns(fn))}}};")
        out.append("  const bool croktile__into = !croktile__out_obj.is_none();")
        out.append("  std::optional<py::argument> out__arr;")
        out.append("  if (croktile__into) out__arr.emplace(croktile__out_obj, out__info);")

    def call(args: List[str]) -> List[str]:
        text = f"{fn.name}({', '.join(args)})"
        if fn.ret_kind == "void":
            return [f"  py::run([&] {{ {text}; }});", "  return nb::none();"]
        if fn.ret_kind == "data":
            return [f"  return py::to_python(py::run([&] {{ return {text}; }}));"]
        return [f"  return nb::cast(py::run([&] {{ return {text}; }}));"]

    scalar = {p.name: _scalar_arg(p) for p in fn.params if p.kind != "data"}
    if device:
        out.append(f"  if (py::device_call({data[0].name}__arr)) {{")
        for p in data:
            out.append(f"    const auto {p.name} = py::dev_view<{elem_ctype(p.elem)}, {p.rank}>"
                       f"({p.name}__arr, {p.name}__info);")
        out.append(f"    const {api}::stream croktile__stream = py::current_stream(croktile__stream_obj, "
                   f"{data[0].name}__arr);")
        args = [p.name if p.kind == "data" else scalar[p.name] for p in fn.params] + ["croktile__stream"]
        if into:
            out.append("    if (croktile__into) {")
            out.append(f"      const auto croktile__out = py::dev_view<{result}>(*out__arr, out__info);")
            out.append(f"      py::run([&] {{ {fn.name}({', '.join(args[:-1] + ['croktile__out', args[-1]])}); }});")
            out.append("      return nb::borrow(croktile__out_obj);")
            out.append("    }")
        out += ["  " + line for line in call(args)]
        out.append("  }")
        out.append(f"  py::refuse_capture({c_string(fn.name)}, croktile__stream_obj);")
    for p in data:
        out.append(f"  const auto {p.name} = py::host_view<{elem_ctype(p.elem)}, {p.rank}>"
                   f"({p.name}__arr, {p.name}__info);")
    host_args = [p.name if p.kind == "data" else scalar[p.name] for p in fn.params]
    if into:
        out.append("  if (croktile__into) {")
        out.append(f"    const auto croktile__out = py::host_view<{result}>(*out__arr, out__info);")
        out.append(f"    py::copy_into(croktile__out, py::run([&] {{ return {fn.name}({', '.join(host_args)}); }}), "
                   "out__info);")
        out.append("    return nb::borrow(croktile__out_obj);")
        out.append("  }")
    out += call(host_args)
    out.append("}")
    return out


def bindings_source(functions: List[ir.Function], module: str, toolchain, sources: List[str]) -> str:
    """The nanobind source of module `module` for `functions` (their definitions are in
    the generated translation units it is linked with)."""
    api = toolchain.device_api
    out = [f"// Generated by croktilec from {', '.join(os.path.basename(s) for s in sources)} "
           f"(target {toolchain.target}): the Python module '{module}'. Do not edit.",
           "#include <nanobind/nanobind.h>", "#include <nanobind/ndarray.h>",
           '#include "croktile.h"', f'#include "{toolchain.runtime_header}"',
           '#include "croktile_dlpack.h"', '#include "croktile_python.h"', "",
           "namespace nb = nanobind;", "namespace py = croktile::python;", ""]
    for fn in functions:
        out.append(signature(fn) + ";")
        if has_device_form(fn):
            out.append(device_prototype(fn, api))
    out.append("")
    for fn in functions:
        out += _function(fn, api)
        out.append("")
    # nanobind registers classes by C++ type name in state all modules share: a tag named
    # after the module makes this module's DeviceArray its own
    out.append(f"struct croktile_module_tag__{module} {{}};")
    out.append("")
    out.append(f"NB_MODULE({module}, m) {{")
    out.append("  py::init_errors(m);")
    out.append(f"  py::init_device_array<croktile_module_tag__{module}>(m);")
    out.append(f"  m.attr(\"target\") = {c_string(toolchain.target)};")
    out.append(f"  m.attr(\"profile\") = {c_string(toolchain.profile['name'])};")
    for fn in functions:
        args = [f'nb::arg("{p.name}")' + (".noconvert()" if p.kind == "bool" else "") for p in fn.params]
        if has_device_form(fn):
            args += ["nb::kw_only()", 'nb::arg("stream") = nb::none()']
        if has_destination_form(fn, api):
            args += ['nb::arg("out") = nb::none()']
        out.append(f"  m.def({c_string(fn.name)}, &croktile_py__{fn.name}, {', '.join(args)},")
        out.append(f"        nb::sig({c_string(_py_signature(fn, api))}),")
        out.append(f"        {c_string(docstring(fn, api))});")
    out.append("}")
    return "\n".join(out) + "\n"


def stub_source(functions: List[ir.Function], module: str, toolchain, sources: List[str]) -> str:
    """The module's type stub (.pyi): each function's parameters and their declared shapes."""
    out = [f"# Generated by croktilec from {', '.join(os.path.basename(s) for s in sources)} "
           f"(target {toolchain.target}): the Python module '{module}'. Do not edit.",
           "from typing import Any", "", "from numpy.typing import ArrayLike", "",
           "target: str", "profile: str", "",
           "class Error(RuntimeError): ...", "class ArgumentError(Error, ValueError): ...", "",
           "class DeviceArray:",
           "    shape: tuple[int, ...]",
           "    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,"
           " copy: Any = None) -> Any: ...",
           "    def __dlpack_device__(self) -> tuple[int, int]: ...",
           "    def to_numpy(self) -> Any: ...", ""]
    for fn in functions:
        out.append(_py_signature(fn, toolchain.device_api) + ":")
        doc = docstring(fn, toolchain.device_api).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
        out.append('    """' + doc.replace("\n", "\n    ") + '\n    """')
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------
# nanobind: where its headers are, and its library built once into the cache
# ---------------------------------------------------------------------------

class NanobindMissing(Exception):
    pass


def nanobind_dirs() -> Tuple[str, List[str]]:
    """(nanobind's package directory, the include directories a module's source needs)."""
    try:
        import nanobind
    except ImportError:
        raise NanobindMissing("--python-module needs the nanobind package "
                              "(pip install croktile installs it)") from None
    root = os.path.dirname(os.path.abspath(nanobind.__file__))
    return root, [os.path.join(root, "include"), sysconfig.get_paths()["include"]]


def nanobind_version() -> str:
    import nanobind
    return getattr(nanobind, "__version__", "unknown")


def module_defines() -> List[str]:
    return ["-DNB_FREE_THREADED"] if sysconfig.get_config_var("Py_GIL_DISABLED") else []


def library_plan(cxx: List[str], flags: List[str]) -> Tuple[str, List[str]]:
    """Where nanobind's library object for this compiler and these flags is cached, and the
    command that builds it (compiled once, reused by every module built alike)."""
    from ..paths import cache_dir
    root, includes = nanobind_dirs()
    identity = [nanobind_version(), sys.version, *cxx, *flags, *_compiler_identity(cxx[0])]
    digest = hashlib.sha256("\0".join(identity).encode("utf-8", "surrogateescape")).hexdigest()[:20]
    obj = os.path.join(cache_dir(), "nanobind", f"nb-{nanobind_version()}-{digest}.o")
    argv = [*cxx, *flags, *module_defines(),
            *[f"-I{d}" for d in includes], f"-I{os.path.join(root, 'ext', 'robin_map', 'include')}",
            "-c", os.path.join(root, "src", "nb_combined.cpp"), "-o", obj]
    return obj, argv


def _compiler_identity(command: str) -> List[str]:
    """The compiler's file (its real path, size and time), standing for its version."""
    import shutil
    path = shutil.which(command)
    if path is None:
        return [command]
    real = os.path.realpath(path)
    st = os.stat(real)
    return [real, str(st.st_size), str(st.st_mtime_ns)]


def build_library(argv: List[str], env=None) -> int:
    """Runs nanobind's library build into the cache, once: under a lock, into a temporary
    that is renamed into place, so concurrent builds wait for the first one."""
    from . import interrupts
    obj = argv[argv.index("-o") + 1]
    if os.path.exists(obj):
        return 0
    os.makedirs(os.path.dirname(obj), exist_ok=True)
    with file_lock(obj + ".lock"):
        if os.path.exists(obj):
            return 0
        tmp = f"{obj}.{os.getpid()}.tmp.o"
        cmd = list(argv)
        cmd[cmd.index("-o") + 1] = tmp
        try:
            rc = interrupts.run_child(cmd, env=env)
            if rc == 0:
                os.replace(tmp, obj)
            return rc
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
