"""A build for several GPU architectures (archs.py): each `__co__` function is generated
once per architecture, in that architecture's namespace (`croktile_sm_80::f`), and `f`
itself is a dispatcher that calls the build the current device runs.

The choice is made once per device, by `croktile_cuda_build` (written once into the
file): `$CROKTILE_CUDA_ARCH` names a build to take (an error if the file has none of
that name, or the device cannot run it), else the newest architecture the device runs
(an `a` one on its own compute capability only, a plain one there and on newer GPUs,
through its PTX). `CROKTILE_CUDA_ARCH_REPORT=1` prints each choice on stderr.
"""
from __future__ import annotations

from typing import List

from ... import ir
from ...codegen.cxx import line_directive
from ...codegen.device_host import where
from ...codegen.signatures import (
    destination_signature,
    device_signature,
    has_destination_form,
    has_device_form,
    signature,
)
from .archs import namespace, number


def chooser(archs: List[str]) -> List[str]:
    """The file's `croktile_cuda_build(where)`: the index in `archs` of the build to run."""
    names = ", ".join(f'"{a}"' for a in archs)
    numbers = ", ".join(str(number(a)) for a in archs)
    exact = ", ".join("true" if a.endswith("a") else "false" for a in archs)
    return f"""\
// The build of this file's functions that the current device runs (dispatch.py): an index
// into croktile_cuda_archs, whose namespaces hold the builds; chosen once per device.
static const char* const croktile_cuda_archs[] = {{{names}}};
static int croktile_cuda_forced(const char* where) {{   // $CROKTILE_CUDA_ARCH's build, or -1
  const char* name = std::getenv("CROKTILE_CUDA_ARCH");
  if (name == nullptr || *name == 0) return -1;
  std::string built;
  for (int i = 0; i < {len(archs)}; ++i) {{
    if (std::strcmp(name, croktile_cuda_archs[i]) == 0) return i;
    built += std::string(i ? ", " : "") + croktile_cuda_archs[i];
  }}
  throw croktile::runtime_error(std::string(where) + ": CROKTILE_CUDA_ARCH=" + name +
                                " is not an architecture this program was built for (" + built + ")");
}}
static int croktile_cuda_build(const char* where) {{
  static const int croktile_numbers[] = {{{numbers}}};
  static const bool croktile_exact[] = {{{exact}}};   // an `a` architecture: its own GPU only
  static const int croktile_forced = croktile_cuda_forced(where);
  static std::atomic<int> croktile_chosen[64];      // per device: the build + 1, or 0
  int device = 0;
  croktile::cuda::check(cudaGetDevice(&device), "cudaGetDevice", where);
  std::atomic<int>* const slot = device >= 0 && device < 64 ? &croktile_chosen[device] : nullptr;
  if (slot != nullptr) {{
    const int known = slot->load(std::memory_order_relaxed);
    if (known != 0) return known - 1;
  }}
  int croktile_major = 0, croktile_minor = 0;
  croktile::cuda::check(cudaDeviceGetAttribute(&croktile_major, cudaDevAttrComputeCapabilityMajor, device),
                        "cudaDeviceGetAttribute", where);
  croktile::cuda::check(cudaDeviceGetAttribute(&croktile_minor, cudaDevAttrComputeCapabilityMinor, device),
                        "cudaDeviceGetAttribute", where);
  const int cc = croktile_major * 10 + croktile_minor;
  const auto runs = [&](int i) {{ return croktile_exact[i] ? croktile_numbers[i] == cc : croktile_numbers[i] <= cc; }};
  int pick = croktile_forced;
  for (int i = {len(archs) - 1}; pick < 0 && i >= 0; --i)   // the newest it runs
    if (runs(i)) pick = i;
  const std::string gpu = "device " + std::to_string(device) + " (compute capability " +
                          std::to_string(croktile_major) + "." + std::to_string(croktile_minor) + ")";
  if (pick < 0 || !runs(pick)) {{
    std::string built;
    for (int i = 0; i < {len(archs)}; ++i) built += std::string(i ? ", " : "") + croktile_cuda_archs[i];
    throw croktile::runtime_error(std::string(where) + ": " + gpu + " cannot run " +
                                  (pick < 0 ? "any architecture this program was built for (" + built + ")"
                                            : std::string("CROKTILE_CUDA_ARCH=") + croktile_cuda_archs[pick]));
  }}
  const char* report = std::getenv("CROKTILE_CUDA_ARCH_REPORT");
  if (report != nullptr && *report != 0 && std::strcmp(report, "0") != 0)
    std::fprintf(stderr, "croktile: %s runs the %s build%s\\n", gpu.c_str(), croktile_cuda_archs[pick],
                 croktile_forced >= 0 ? " (CROKTILE_CUDA_ARCH)" : "");
  if (slot != nullptr) slot->store(pick + 1, std::memory_order_relaxed);
  return pick;
}}""".splitlines()


def in_namespace(arch: str, text: str) -> str:
    """One architecture's build of a function (its kernels and host code)."""
    return f"namespace {namespace(arch)} {{\n{text}\n}}  // namespace {namespace(arch)}"


def dispatchers(fn: ir.Function, archs: List[str], api: str) -> str:
    """The user-visible forms of `fn` (the host form, the device form and the one writing
    into the caller's destination), each calling the chosen build's."""
    names = [p.name for p in fn.params]
    forms = [(signature(fn), names)]
    if has_device_form(fn):
        forms.append((device_signature(fn, api), names + ["croktile_stream"]))
    if has_destination_form(fn, api):
        forms.append((destination_signature(fn, api), names + ["croktile_out", "croktile_stream"]))
    out = []
    for sig, args in forms:
        call = f"{fn.name}({', '.join(args)});"
        out += [line_directive(fn.loc), sig.replace("[[maybe_unused]] ", "") + " {",
                f"  switch (croktile_cuda_build({where(fn.loc)})) {{"]
        out += [f"  case {i}: return {namespace(a)}::{call}" for i, a in enumerate(archs[:-1])]
        out += [f"  default: return {namespace(archs[-1])}::{call}", "  }", "}"]
    return "\n".join(out)
