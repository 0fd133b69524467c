"""The read-before-wait dataflow (pending.py) on deeply nested `foreach ... if` blocks:
an answer at the read for as deep as sema's walk goes, and a diagnostic, never an
internal error, beyond that."""
from __future__ import annotations

import pytest

from helpers.croktilec import run_croktilec


def nested_masks(depth: int) -> str:
    names = [f"v{i}" for i in range(depth)]
    lines = ["__device__ void kernel(int *x, int n) {}",
             "__co__ void f(s32 [4, 8] a) {",
             "  parallel p by 4 {",
             "    with {" + ", ".join(names) + "} in [" + ", ".join(["2"] * depth) + "] {",
             "g = dma.copy.async a.chunkat(p, _) => local;"]
    lines += [f"foreach {n} if (p == {i % 4}) {{" for i, n in enumerate(names)]
    lines += ["wait g;"] + ["}"] * depth
    lines += ["call kernel(g.data, 8);", "    }", "  }", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("depth", [150, 600])
def test_deep_masks_get_an_answer(tmp_path, depth):
    src = tmp_path / "deep.co.cpp"
    src.write_text(nested_masks(depth))
    res = run_croktilec("-fsyntax-only", src, cwd=tmp_path)
    assert res.rc == 1, res
    read_line = nested_masks(depth).splitlines().index("call kernel(g.data, 8);") + 1
    assert f"deep.co.cpp:{read_line}:15: error: 'g.data' is read before 'wait g'" in res.err, res
    if depth == 150:
        assert res.err.count(": error:") == 1, res
