"""Events pass the frontend (tests/dialect/cases/dma/err_events.co.cpp) but no target
generates code for them yet: a build must say so at the first event, not miscompile."""
from __future__ import annotations

import pytest

from driver.util import run_croktilec

SOURCE = """__co__ void f(s32 [4] a) {
  parallel p by 2 {
    shared event e;
    trigger e;
    wait e;
  }
}
"""


@pytest.mark.parametrize("target", ["cpu", "factor", "opencl", "cuda"])
def test_events_are_refused_by_code_generation(tmp_path, target):
    src = tmp_path / "ev.co.cpp"
    src.write_text(SOURCE)
    res = run_croktilec("-t", target, "-c", src, "-o", tmp_path / "ev.o", cwd=tmp_path)
    assert res.rc == 1, res
    assert "ev.co.cpp:3:5: error: events are not supported yet by the code generators" in res.err, res
    assert not (tmp_path / "ev.o").exists()
    ok = run_croktilec("-fsyntax-only", src, cwd=tmp_path)
    assert ok.rc == 0, ok
