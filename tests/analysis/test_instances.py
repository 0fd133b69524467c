"""Instances of functions over symbolic shapes (issue #21, toolchains/instances.py).

instances.co.cpp tiles a streaming add with symbolic M, N as the issue's program does
(chunks of 4 columns when 32 divides N) and beside it with constant shapes, and a void
function that writes into an argument. Every target must give the arithmetic's results
(and the static function's) for shapes that take the divisibility instance and for shapes
that miss it (N = 40 and N = 48: chunks of 5 and 6 columns, the generic body); `-S` and
`--memory-report` say which instance a call takes, why, and what stays in global scratch.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from helpers.croktilec import run_croktilec
from helpers.targets import TARGETS, build_for_targets, program

SOURCE = Path(__file__).resolve().parent / "instances.co.cpp"

# main's arguments; the instance is taken where 4 divides M and 32 divides N (add), or
# 2 divides M and 16 divides N (scale)
CASES = [["add", "8", "64"], ["add", "8", "96"], ["add", "12", "64"], ["add", "8", "40"], ["add", "4", "48"],
         ["scale", "4", "32"], ["scale", "6", "48"], ["scale", "4", "24"], ["scale", "2", "40"]]


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    return build_for_targets(SOURCE, tmp_path_factory.mktemp("instances"))


@pytest.mark.parametrize("target", TARGETS)
def test_symbolic_and_static_shapes_give_the_same_results(programs, target):
    exe = program(programs, target)
    for args in CASES:
        got = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=60)
        assert (got.returncode, got.stdout) == (0, f"{args[0]} {args[1]}x{args[2]} right\n"), (target, args, got)


def test_generated_source_chooses_the_instance(tmp_path):
    out = tmp_path / "instances.cu"
    res = run_croktilec("-t", "cuda", "-S", "--memory-report", SOURCE, "-o", out, cwd=tmp_path)
    assert res.rc == 0, res
    text = out.read_text()
    # the dispatch at the call, and why
    assert "if (((M % 4) == 0) && ((N % 32) == 0)) return add_symbolic__v1(a, b, croktile_stream);" in text
    assert "{ scale_into__v1(a, out, croktile_stream); return; }" in text
    why = ("the call takes instance add_symbolic__v1 when 4 divides M and 32 divides N (12 of 13 "
           "run-time extents, buffer dimensions and loop counts become constants; no buffer in global scratch), "
           "else the generic body (in global scratch: 'x' [(M / (4*(M / 4))), (N / (8*(N / 32)))]")
    assert f"instances.co.cpp:39:1: 'add_symbolic': {why}" in res.err and f"// {why}" in text
    # the instance's kernel is the static one's: per-thread arrays of 4, no scratch
    instance = text[text.index("add_symbolic__v1__launch0("):text.index("add_symbolic__launch0(")]
    generic = text[text.index("add_symbolic__launch0("):]
    assert "__align__(16) float x_buf[4];" in instance and "croktile_scratch" not in instance
    assert "croktile_scratch" in generic


def test_no_instance_where_none_pays(tmp_path):
    src = tmp_path / "rows.co.cpp"
    src.write_text("__co__ s32 [a.span] rows(s32 [M, N] a) {\n  s32 [a.span] out;\n  parallel p by 4 {\n"
                   "    x = dma.copy a.chunkat(p, _) => local;\n    dma.copy x => out.chunkat(p, _);\n  }\n"
                   "  return out;\n}\n")
    res = run_croktilec("-S", src, "-o", tmp_path / "rows.cpp", cwd=tmp_path)
    assert res.rc == 0, res
    assert "__v1" not in (tmp_path / "rows.cpp").read_text()


def test_cpu_runs_independent_instances_inside_their_loops(tmp_path):
    """cpu (toolchains/loop_order.py): the add's inner level carries nothing from one
    iteration of its loops to the next, so its instances run inside the loops (neighbouring
    instances, neighbouring memory); the copies are loops with constant trip counts."""
    out = tmp_path / "instances.cpp"
    res = run_croktilec("-S", SOURCE, "-o", out, cwd=tmp_path)
    assert res.rc == 0, res
    text = "\n".join(line.strip() for line in out.read_text().splitlines() if not line.lstrip().startswith("#line"))
    static = text[text.index("add_static(croktile::spanned_view"):text.index("add_symbolic__v1(croktile::spanned_view")]
    assert ("for (long long jm = 0; jm < 4; ++jm) {\nfor (long long jn = 0; jn < 2; ++jn) {\n"
            "for (long long q = 0; q < 8; ++q) {") in static
    assert "for (long long croktile_e = 0; croktile_e < 4; ++croktile_e)" in static and "copy_box" not in static


def test_a_diagnostic_of_a_statement_that_each_instance_visits_is_printed_once():
    """The code generators visit a statement once per instance of its function: the same
    error at the same place is printed (and counted) once."""
    import io
    from croktile_driver.diagnostics import Diagnostics, Loc
    out = io.StringIO()
    diag = Diagnostics(stream=out)
    diag.add_source("k.co.cpp", "  call f(x);\n")
    for _ in range(2):
        diag.error(Loc("k.co.cpp", 1, 3), "'call' outside 'parallel' cannot run on target 'cuda'")
    assert diag.errors == 1
    assert out.getvalue().count("error:") == 1, out.getvalue()
