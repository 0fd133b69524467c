"""Command-line macros named as the runtime's template parameters (`-DM=4096`): the
generated file undefines them while it reads the runtime headers (macro_guard.py), and
the user's code after them sees them."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from croktile_driver.codegen.macro_guard import guarded_head, runtime_identifiers
from helpers.croktilec import run_croktilec

HERE = Path(__file__).resolve().parent
MACROS = ["-DM=3", "-DN=4", "-DK=1", "-DD=2", "-DT=3", "-DC=4"]


@pytest.mark.parametrize("target", ["cpu", "factor"])
def test_program_sized_by_single_letter_macros(target, tmp_path):
    exe = tmp_path / f"sized_{target}"
    res = run_croktilec("-t", target, *MACROS, str(HERE / "sized_by_macros.co.cpp"), "-o", str(exe), cwd=tmp_path,
                        timeout=300)
    assert res.rc == 0, res
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    # sum of 0..11 times (1 + 2 + 3 + 4)
    assert run.stdout.strip() == "M=3 N=4 sum=660.0", run.stdout


def test_generated_file_saves_and_restores_them(tmp_path):
    out = tmp_path / "sized.cpp"
    res = run_croktilec("-S", *MACROS, "-DCROKTILE_NO_SUCH_OPTION", str(HERE / "sized_by_macros.co.cpp"), "-o", str(out),
                        cwd=tmp_path)
    assert res.rc == 0, res
    lines = out.read_text().splitlines()
    first = next(i for i, l in enumerate(lines) if l.startswith("#include"))
    last = max(i for i, l in enumerate(lines) if l.startswith('#include "croktile'))
    for name in "MNKDTC":
        assert lines.index(f'#pragma push_macro("{name}")') < first
        assert f"#undef {name}" in lines[:first]
        assert lines.index(f'#pragma pop_macro("{name}")') > last
    assert not any("CROKTILE_NO_SUCH_OPTION" in l for l in lines)


def test_runtime_configuration_macros_are_left_alone():
    # tested by the headers' #if lines: the user sets them for the runtime
    assert "CROKTILE_REQUIRE_FAST_INSTANCE" not in runtime_identifiers()
    assert "NDEBUG" not in runtime_identifiers()
    assert guarded_head(['#include "croktile.h"'], ["CROKTILE_REQUIRE_FAST_INSTANCE", "NDEBUG"]) == \
        ['#include "croktile.h"']
