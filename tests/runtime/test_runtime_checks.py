"""Run-time checks of what divides or sizes something, on every target (issue #11, "Run time").

``checks.co.cpp`` computes 'with' bounds, 'parallel' counts, chunkat bounds, divisors and
data sizes from its arguments; main runs the case its first argument names. Each bad
value must end the program in a ``croktile::runtime_error`` naming the ``.co.cpp`` line
(and column) of the construct, never in a signal (SIGFPE), another exception or a silent
pass; good values, divisions guarded by '?:', '&&', '||' or 'foreach ... if', and empty
tensors (a dimension of 0) must run through with the cpu target's results.

cpu, factor and opencl (PoCL) programs are built and run; cuda is compiled with ``-c``
(nvcc, no GPU needed) and run only where a GPU is present.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers.croktilec import run_croktilec
from helpers.targets import TARGETS, build_for_targets, program

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "checks.co.cpp"
LINES = SOURCE.read_text().splitlines()


def marked(marker: str) -> int:
    """The line that ends in ``// CHECK: marker``."""
    found = [i for i, text in enumerate(LINES, 1) if re.search(rf"// CHECK: {marker}$", text)]
    assert len(found) == 1, marker
    return found[0]


def at(marker: str, text: str) -> str:
    """``file:line:column:`` of ``text`` in a marked line."""
    line = marked(marker)
    return f"checks.co.cpp:{line}:{LINES[line - 1].index(text) + 1}:"


# (main's arguments, where the error points, its message)
FAILING = [
    (["with"], at("with", "[M / 4"), "'with' bound is 0; it must be positive"),
    (["with_neg"], at("with", "[M / 4"), "'with' bound is -2; it must be positive"),
    (["with_empty"], at("with", "[M / 4"), "'with' bound is 0; it must be positive"),
    (["parallel", "0"], at("parallel", "outer {"), "'parallel' count is 0; it must be positive"),
    (["parallel", "-2"], at("parallel", "outer {"), "'parallel' count is -2; it must be positive"),
    (["inner_parallel", "0"], at("inner parallel", "inner {"), "'parallel' count is 0; it must be positive"),
    (["chunkat", "4"], at("chunkat", "i) =>"), "dimension 0 of 'a' (6) is not divisible by the bound of 'i' (4)"),
    (["chunkat", "0"], at("chunk bound", "[n]"), "'with' bound is 0; it must be positive"),
    (["divide", "0"], at("divide", "/ b"), "division by zero"),
    (["modulo", "0"], at("divide", "% b"), "division by zero"),
    (["overflow", "-1"], at("overflow", "/ b"), "integer overflow: -2147483648 / -1 is outside the range of 'int'"),
    (["span_division", "0"], at("span division", "/ n"), "division by zero"),
    (["negative_size", "6"], at("negative size", "[M - less]"), "dimension 0 of 't' is -2; it must not be negative"),
    (["device_with", "0"], at("device with", "[p + base]"), "'with' bound is 0; it must be positive"),
    (["device_division", "2"], at("device division", "/ (p"), "division by zero"),
    (["int_argument", "64"], at("int argument", "|a.span|"),
     "an argument of 'take' is 4294967296, outside the range of 'int' (-2147483648 to 2147483647)"),
    (["huge", "2000000"], at("huge", "[n, n, n]"),
     "'big' of shape [2000000, 2000000, 2000000] is too large: its size in bytes does not fit in 63 bits"),
]

# (main's arguments, what it prints)
PASSING = [
    (["with_ok"], "1 2 3 4 5 6 7 8"),
    (["chunkat", "3"], "0 1 2 3 4 5"),
    (["divide", "2"], "7"),
    (["overflow", "2"], "-2147483648"),
    (["device_with", "1"], "1 2 4 5"),
    (["guarded", "0"], "0"),
    (["span_division", "2"], "0 1 2 3"),
    (["negative_size", "4"], "0 1 2 3"),
    (["device_division", "9"], "-1 0 1 2 3 4 4 5"),
    (["masked", "0"], "masked ok"),
    (["masked", "3"], "masked ok"),
    (["int_argument", "1"], "int_argument ok"),
    (["huge", "100"], "huge ok"),
    (["huge", "0"], "huge ok"),
    (["empty"], "empty ok"),
]


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """checks.co.cpp for every target that runs here, compiled in parallel once."""
    return build_for_targets(SOURCE, tmp_path_factory.mktemp("runtime-checks"))


def run(exe: Path, args) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe), *args], cwd=str(exe.parent), capture_output=True, text=True, timeout=60)


def case_id(case) -> str:
    return "-".join(case[0])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", FAILING, ids=case_id)
def test_bad_value_is_a_runtime_error(built, target, case):
    args, where, message = case
    got = run(program(built, target), args)
    # main catches croktile::runtime_error and exits 3; a signal is a negative status
    assert got.returncode == 3, f"{target} {args}: status {got.returncode}\n{got.stdout}{got.stderr}"
    assert f"{where} runtime check failed: {message}\n" in got.stdout, got.stdout


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", PASSING, ids=case_id)
def test_good_value_runs(built, target, case):
    args, printed = case
    got = run(program(built, target), args)
    assert got.returncode == 0, f"{target} {args}: status {got.returncode}\n{got.stdout}{got.stderr}"
    assert got.stdout.split() == printed.split()


def _gpu_present() -> bool:
    smi = shutil.which("nvidia-smi")
    return smi is not None and subprocess.run([smi, "-L"], capture_output=True).returncode == 0


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_cuda(tmp_path):
    """Compiled for cuda (the checks are in the host and device code); run where a GPU is."""
    src = tmp_path / "checks.cu"
    res = run_croktilec("-t", "cuda", "-S", SOURCE, "-o", src, cwd=tmp_path)
    assert res.rc == 0, res
    text = src.read_text()
    for message in ("'with' bound is {0}; it must be positive", "'parallel' count is {0}; it must be positive",
                    "division by zero", "dimension 0 of 't' is {0}; it must not be negative",
                    "outside the range of 'int'", "does not fit in 63 bits"):
        assert message in text, message
    res = run_croktilec("-t", "cuda", "-c", SOURCE, "-o", tmp_path / "checks.o", cwd=tmp_path, timeout=300)
    assert res.rc == 0, res
    if not _gpu_present():
        return
    exe = tmp_path / "checks.cuda"
    res = run_croktilec("-t", "cuda", SOURCE, "-o", exe, cwd=tmp_path, timeout=300)
    assert res.rc == 0, res
    for args, where, message in FAILING:
        got = run(exe, args)
        assert got.returncode == 3 and f"{where} runtime check failed: {message}\n" in got.stdout, \
            f"cuda {args}: status {got.returncode}\n{got.stdout}{got.stderr}"
    for args, printed in PASSING:
        got = run(exe, args)
        assert got.returncode == 0 and got.stdout.split() == printed.split(), \
            f"cuda {args}: status {got.returncode}\n{got.stdout}{got.stderr}"


def test_checks_of_host_values_run_once_before_the_launch(tmp_path):
    """A check whose values the host knows runs once per call, before the parallel (not in
    every instance, nor in device code); one that depends on an instance stays inside."""
    ok_cpu = run_croktilec("-t", "cpu", "-S", SOURCE, "-o", tmp_path / "c.cpp", cwd=tmp_path)
    assert ok_cpu.rc == 0, ok_cpu
    cpu = (tmp_path / "c.cpp").read_text()

    def function(name: str) -> str:
        body = cpu[cpu.index(f" {name}(croktile::"):]
        return body[:body.index("\n}\n")]
    for name, message in (("with_bound", "'with' bound is {0}"),
                          ("with_bound", "is not divisible by the bound of 'i'"),
                          ("with_bound", "outside the range of 'int'"),
                          ("masked", "division by zero")):   # under 'foreach ... if', guarded
        body = function(name)
        assert message in body, (name, message)
        assert body.rindex(message) < body.index("croktile::cpu::parallel_for"), (name, message)
    ok_cl = run_croktilec("-t", "opencl", "-S", SOURCE, "-o", tmp_path / "o.cpp", cwd=tmp_path)
    assert ok_cl.rc == 0, ok_cl
    host, device = (tmp_path / "o.cpp").read_text(), (tmp_path / "o.cl").read_text()
    with_line = marked("with")
    assert f"checks.co.cpp:{with_line}:" in host
    # the device program reports a failed check by number; its bound check is the instance's
    assert "((base + p) > 0)" in device and "(M / 4)) - less) > 0" not in device
