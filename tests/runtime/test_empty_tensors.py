"""Empty tensors (a dimension of 0) on every target, beyond checks.co.cpp's case.

README, "Run-time checks": a call with an empty dimension does nothing and returns a
result of the right shape. empty.co.cpp sizes shared, local and async-copied buffers by
empty chunks and shapes a result by two arguments; the results must equal the cpu
target's (and the arithmetic) for empty and non-empty shapes alike.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from helpers.croktilec import run_croktilec
from helpers.targets import TARGETS, build_for_targets, program

SOURCE = Path(__file__).resolve().parent / "empty.co.cpp"

# (main's arguments, what it prints: the result's shape and first element)
CASES = [
    (["shared", "4", "8"], "4x8 2"), (["shared", "0", "8"], "0x8"), (["shared", "4", "0"], "4x0"),
    (["shared", "0", "0"], "0x0"),
    (["async", "4", "3"], "4x3 2"), (["async", "0", "3"], "0x3"), (["async", "4", "0"], "4x0"),
    (["matmul", "4", "3", "2"], "4x3 4"), (["matmul", "4", "3", "0"], "4x3 0"), (["matmul", "0", "3", "2"], "0x3"),
    (["matmul", "4", "0", "2"], "4x0"), (["matmul", "0", "0", "0"], "0x0"),
    # 2^31 x 2^31 elements of 4 bytes: opencl's argument buffer size wrapped to 0 (a crash)
    (["huge", "31", "31"], "runtime_error: croktile: shape is too large: its size in bytes does not fit in 63 bits"),
    (["huge", "62", "0"], "runtime_error: croktile: shape is too large: its size in bytes does not fit in 63 bits"),
]


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    return build_for_targets(SOURCE, tmp_path_factory.mktemp("empty"))


@pytest.mark.parametrize("target", TARGETS)
def test_empty_dimensions(programs, target):
    exe = program(programs, target)
    for args, printed in CASES:
        got = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=60)
        status = 3 if printed.startswith("runtime_error: ") else 0
        assert (got.returncode, got.stdout) == (status, printed + "\n"), (target, args, got.stdout, got.stderr)


def test_function_named_after_a_return_type_with_parentheses(tmp_path):
    """The splitter named `s32 [a.span(0), ...] matmul(...)` 'span' (the word before the
    first '('), so the function and its prototype vanished from the output silently."""
    src = tmp_path / "f.co.cpp"
    src.write_text("__co__ s32 [a.span(0)] first(s32 [M] a);\n"
                   "__co__ s32 [(a.span(0)) + 1] second(s32 [M] a) { s32 [a.span(0) + 1] c; return c; }\n"
                   "__co__ s32 [a.span(0)] first(s32 [M] a) { s32 [a.span] c; return c; }\n")
    res = run_croktilec("-S", src, "-o", tmp_path / "f.cpp", cwd=tmp_path)
    assert res.rc == 0, res
    text = (tmp_path / "f.cpp").read_text()
    assert text.count(" first(croktile::spanned_view<int32_t, 1> a)") == 2, text
    assert " second(croktile::spanned_view<int32_t, 1> a) {" in text, text
