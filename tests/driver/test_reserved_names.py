"""A __co__ name that the runtime or the generated code reserves is the frontend's error at
the name, on every target, before any code is generated (issue #36: the C++ compiler
failed on the generated code, at a column that the line does not have)."""
from __future__ import annotations

import pytest

from helpers.inprocess import parse_diags

CASES = {
    "__co__ void choreo(s32 [4] a) {\n  parallel p by 1 { x = dma.copy a => local; }\n}\n":
        (1, 13, "the name 'choreo' is reserved: it is the runtime's namespace (its former name)"),
    "__co__ void f(s32 [4] a) {\n  parallel blockIdx by 2 { x = dma.copy a.chunkat(blockIdx) => local; }\n}\n":
        (2, 12, "the name 'blockIdx' is reserved: it is a built-in variable of CUDA, which the generated kernels use"),
}


@pytest.mark.parametrize("target", ["cpu", "cuda", "factor", "opencl"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_reserved_name_is_an_error_on_every_target(tmp_path, croktilec, target, case):
    src = tmp_path / "reserved.co.cpp"
    src.write_text(case + "int main() { return 0; }\n")
    r = croktilec("-t", target, "-S", src, "-o", tmp_path / "out.cpp")
    assert r.rc == 1
    assert [(d.line, d.col, d.msg) for d in parse_diags(r.err)] == [CASES[case]], r.err
    assert not (tmp_path / "out.cpp").exists()
