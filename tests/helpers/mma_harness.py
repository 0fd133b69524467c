"""Builds and reads the tensor-core harnesses: tests/runtime/mma/harness.cpp runs every
croktile::mma form (from croktile_driver/ir/mma_forms.py), wgmma_harness.cpp
croktile::wgmma with swizzled copies and TMA; both print CASE and FAIL lines.
tests/runtime/test_mma_cpu.py runs them with g++, tests/targets/cuda/test_mma_gpu.py with nvcc on a
GPU."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, List, Tuple

from croktile_driver.ir.mma_forms import FORMS, Form

from .paths import RUNTIME, TESTS

HARNESS = TESTS / "runtime" / "mma" / "harness.cpp"
WGMMA_HARNESS = TESTS / "runtime" / "mma" / "wgmma_harness.cpp"

CXX_TYPES = {"f16": "croktile::f16", "bf16": "croktile::bf16", "tf32": "float", "f32": "float",
             "f64": "double", "s8": "std::int8_t", "u8": "std::uint8_t", "s32": "std::int32_t",
             "f8_e4m3": "croktile::f8_e4m3", "f8_e5m2": "croktile::f8_e5m2"}


def name(f: Form) -> str:
    return f"{f.shape}{'.sp' if f.sparse else ''}.{f.ta}.{f.tb}.{f.tc}"


def write_cases(folder: Path, forms=FORMS) -> Path:
    """mma_cases.inc for the harness: one CASE(...) per form."""
    lines = [f"CASE({f.m}, {f.n}, {f.k}, {CXX_TYPES[f.ta]}, {CXX_TYPES[f.tb]}, {CXX_TYPES[f.tc]}, "
             f"{'true' if f.sparse else 'false'}, \"{name(f)}\")" for f in forms]
    path = folder / "mma_cases.inc"
    path.write_text("\n".join(lines) + "\n")
    return path


def header_forms() -> List[Tuple]:
    """The rows of CROKTILE_MMA_FORMS in runtime/croktile_mma_forms.h, in the table's terms."""
    text = (RUNTIME / "croktile_mma_forms.h").read_text()
    rows = re.findall(r'X\((\d+), (\d+), (\d+), (\w+), (\w+), (\w+), ([01]), (\d+), \w+, "([^"]+)"\)', text)
    lang = {"e4m3": "f8_e4m3", "e5m2": "f8_e5m2"}
    return [(int(m), int(n), int(k), lang.get(a, a), lang.get(b, b), lang.get(c, c), sp == "1", int(sm), ptx)
            for m, n, k, a, b, c, sp, sm, ptx in rows]


def parse(output: str) -> Dict[Tuple[str, str], List[float]]:
    """{(form name, variant): values} from the CASE lines."""
    cases = {}
    for line in output.splitlines():
        if line.startswith("CASE "):
            _, form, variant, *values = line.split()
            cases[(form, variant)] = [float(v) for v in values]
    return cases


def failures(output: str) -> List[str]:
    return [line for line in output.splitlines() if line.startswith("FAIL ")]
