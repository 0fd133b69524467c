"""The corpus's harness (helpers/corpus.py) rejects what it is meant to catch: a missing,
extra, misplaced or misworded diagnostic, and reads ``@+N``/``@-N`` and notes."""
from __future__ import annotations

import pytest

from helpers.corpus import check_diagnostics, read_case

SELF_TESTS = {
    "unexpected_error": "__co__ void f() { int x = y; }\n",
    "missing_error": "__co__ void f() { int x = 1; } // expect-error: was not declared\n",
    "wrong_line": "__co__ void f() {\n  int x = y;\n} // expect-error: 'y' was not declared\n",
    "wrong_text": "__co__ void f() {\n  int x = y; // expect-error: 'z' was not declared\n}\n",
    "unexpected_warning": "__co__ void f(s32 [4] a) { parallel p by 1 { a.span; } }\n",
    "duplicate_needs_two": "__co__ void f() {\n  int x = y + y; // expect-error: 'y' was not declared\n}\n",
    "err_without_expectations": "__co__ void f() {}\n",
    "missing_note": "__co__ void f() {\n  int x = y; // expect-error: 'y' was not declared\n"
                    "  // expect-note@-1: no such note\n}\n",
    "malformed": "__co__ void f() {\n  int x = y; // expect-error 'y' was not declared\n}\n",
}


def _check(path, croktilec):
    check_diagnostics(read_case(path), croktilec)


@pytest.mark.parametrize("name", sorted(SELF_TESTS))
def test_harness_rejects(name, tmp_path, croktilec):
    prefix = "err_" if name == "err_without_expectations" else "self_"
    path = tmp_path / f"{prefix}{name}.co.cpp"
    path.write_text(SELF_TESTS[name])
    with pytest.raises(AssertionError):
        _check(path, croktilec)


def test_harness_accepts_expect_at_offsets(tmp_path, croktilec):
    path = tmp_path / "offsets.co.cpp"
    path.write_text("__co__ void f(s32 [4] a) {\n"
                    "  // expect-error@+1: 'y' was not declared\n"
                    "  int x = y;\n"
                    "  // expect-warning@+2: statement has no effect\n"
                    "  parallel p by 1 {\n"
                    "    a.span;\n"
                    "  }\n"
                    "  int z = q; // expect-error: 'q' was not declared\n"
                    "} // expect-error@-3: never-matches-on-purpose\n")
    with pytest.raises(AssertionError, match="never-matches-on-purpose"):
        _check(path, croktilec)
    path.write_text(path.read_text().replace(" // expect-error@-3: never-matches-on-purpose", ""))
    _check(path, croktilec)


def test_harness_reads_every_marker(tmp_path):
    path = tmp_path / "markers.co.cpp"
    path.write_text("// compile-flags: -t cuda -arch=sm_90a\n"
                    "// targets: cpu factor cuda\n"
                    "// cuda-arch: sm_90a\n"
                    "// not-on-opencl: not written for OpenCL C\n"
                    "// xfail-factor: a known bug\n"
                    "int main() {}\n"
                    "// expect-output: one\n"
                    "// expect-output:  two spaces\n")
    case = read_case(path)
    assert case.flags == ["-t", "cuda", "-arch=sm_90a"]
    assert case.targets == ["cpu", "factor", "cuda"] and case.runs_on() == ["cpu", "factor"]
    assert case.cuda_arch == "sm_90a" and case.not_on_opencl == "not written for OpenCL C"
    assert case.xfail == {"factor": "a known bug"}
    assert case.output == ["one", " two spaces"] and case.is_program and not case.is_error
    path.write_text("// cuda-arch: none: row operations on warp-group accumulators only\n"
                    "// expect-same-output: 5\n")
    case = read_case(path)
    assert case.no_cuda == "row operations on warp-group accumulators only" and case.cuda_arch is None
    assert case.same_output == 5 and case.output is None and case.is_program
    path.write_text("// xfail-everything: no such test\n")
    with pytest.raises(AssertionError, match="xfail-everything"):
        read_case(path)
