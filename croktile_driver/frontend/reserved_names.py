"""Names a __co__ function, parameter or variable cannot take: the runtime's and the
generated code's (issue #36). Taken, they made the C++ compiler fail on generated code
("'choreo' redeclared as different kind of entity"), at a place of the generated text.

Each target's generated code was read (-S) for the names it defines or uses unqualified,
and the runtime headers (runtime/) for the names they declare outside namespaces; one
list holds for every target, so that a program valid on one is valid on all.
"""
from __future__ import annotations

import re
from typing import Optional

# Global names that a __co__ function (a global C++ function of the same name) would
# declare again as another kind of entity. A variable may take them: C++ looks a name
# before `::` up among namespaces and types only, and the generated code's globals are
# not used where the user's variables are.
_GLOBAL = {
    "croktile": "the runtime's namespace",
    "choreo": "the runtime's namespace (its former name)",
    "std": "the C++ library's namespace, which the generated code uses",
    "main": "the program's entry point",
    # the CUDA runtime's (the cpu and opencl runtimes declare the first two too:
    # runtime/croktile_cuda_host_shim.h)
    **{name: "a type of the CUDA runtime, which the generated code includes"
       for name in ("cudaError_t", "cudaMemcpyKind", "cudaStream_t", "dim3", "CUtensorMap")},
    # the generated host code's own globals (targets/opencl/host.py, targets/factor/host.py)
    **{name: "a global of the generated code"
       for name in ("croktile_device_source", "croktile_device_program", "croktile_factor_abi")},
}

# C++'s keywords and alternative tokens that are names in tileflow code (a variable
# `int new = 1;` is C++ that no compiler takes)
_CPP_KEYWORDS = (
    "alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t "
    "class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield "
    "decltype default delete do double dynamic_cast else enum explicit export extern false float for friend "
    "goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private "
    "protected public register reinterpret_cast requires return short signed sizeof static static_assert "
    "static_cast struct switch template this thread_local throw true try typedef typeid typename union "
    "unsigned using virtual void volatile wchar_t while xor xor_eq").split()

# Names no declaration may take: the generated code uses them unqualified, so a variable
# of the name hides what the generated code means.
_EVERYWHERE = {
    **{name: "a C++ keyword (the generated code is C++)" for name in _CPP_KEYWORDS},
    **{f"{u}int{bits}_t": "a type the generated code uses" for u in ("", "u") for bits in (8, 16, 32, 64)},
    "stdout": "the C library's standard output, which the generated code prints to",
    **{name: "a built-in variable of CUDA, which the generated kernels use"
       for name in ("threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize")},
    # targets/opencl: the OpenCL C built-ins its kernels call (OpenCL C's reserved words
    # and type names are renamed in the device program instead: targets/opencl/names.py)
    **{name: "a built-in function of OpenCL C, which the generated kernels call"
       for name in ("get_global_id", "get_group_id", "get_local_id", "get_local_size", "barrier", "mem_fence",
                    "async_work_group_copy", "wait_group_events", "atomic_xchg", "atomic_inc", "atomic_cmpxchg",
                    "as_float", "as_uint")},
}

_CPP_RESERVED = re.compile(r"_[A-Z]|.*__")   # C++ [lex.name]: at the start; anywhere


def reserved_reason(name: str, function: bool) -> Optional[str]:
    """Why ``name`` cannot name a __co__ function (``function``) or a parameter or variable,
    or None where it can."""
    if function and name in _GLOBAL:
        return f"it is {_GLOBAL[name]}"
    if name in _EVERYWHERE:
        return f"it is {_EVERYWHERE[name]}"
    if name.startswith("CROKTILE_"):
        return "names starting with 'CROKTILE_' are the runtime's macros"
    if not function and name.lower().startswith("croktile"):
        # the spec's own example names a function `croktile_function`: only the generated
        # code's locals (`croktile_stream`, `croktile_tid`, the kernels' `CroktileFast`) clash
        return "names starting with 'croktile' are the generated code's"
    if _CPP_RESERVED.match(name):
        return "C++ reserves names that hold '__' or start with '_' and a capital letter (the generated code " \
               "derives its own names with '__')"
    return None
