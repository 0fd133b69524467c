"""Operands that are products or negations keep their grouping in generated code.

Sym.to_c prints `2*k` without parentheses; as an operand of `/`, `%`, `<<`, `<`, `~`, ...
it must be parenthesized, or `M % (2*k)` becomes `(M % 2)*k`: a chunk bound `k * 2`
then passed its divisibility check wrongly and copied past the buffers (heap corruption
on cpu). grouping.co.cpp compares tileflow arithmetic with the same C++ on every target.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from helpers.targets import TARGETS, build_for_targets, program

SOURCE = Path(__file__).resolve().parent / "grouping.co.cpp"
BOUND_LINE = next(i for i, t in enumerate(SOURCE.read_text().splitlines(), 1) if t.endswith("// CHECK: bound"))


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    return build_for_targets(SOURCE, tmp_path_factory.mktemp("grouping"))


@pytest.mark.parametrize("target", TARGETS)
def test_products_as_operands(programs, target):
    exe = program(programs, target)
    for k in ("1", "2", "4"):
        got = subprocess.run([str(exe), k], capture_output=True, text=True, timeout=60)
        assert (got.returncode, got.stdout) == (0, "ok\n"), (target, k, got.stdout, got.stderr)
    # 8 is not divisible by 3 * 2; the misgrouped check `8 % 2*3` is (8 % 2)*3, 0
    got = subprocess.run([str(exe), "3"], capture_output=True, text=True, timeout=60)
    assert got.returncode == 3, (target, got.stdout, got.stderr)
    assert (f"grouping.co.cpp:{BOUND_LINE + 2}:32: runtime check failed: dimension 0 of 'a' (8) "
            f"is not divisible by the bound of 'i' (6)") in got.stdout
