"""How many warp-group multiplies the cuda target lets run on across a copy-engine load
(toolchains/cuda_wgmma_waits.py): each `wgmma_waits/*.co.cpp` pipeline says in its
`// expect-wait: N` what the barrier before its loads must wait for (`wgmma.wait_group N`),
and its generated K loop has exactly that one wait. Too large a count would let the copy
engine overwrite tiles a multiply still reads; too small serializes the pipeline."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers.croktilec import run_croktilec

CASES = sorted((Path(__file__).parent / "wgmma_waits").glob("*.co.cpp"))


@pytest.mark.parametrize("src", CASES, ids=[p.name[: -len(".co.cpp")] for p in CASES])
def test_loads_wait_for_the_multiplies_that_read_their_buffers(src: Path, tmp_path: Path):
    want = int(re.search(r"//\s*expect-wait:\s*(\d+)", src.read_text())[1])
    res = run_croktilec("-t", "cuda", "-arch=sm_90a", "-S", src, "-o", tmp_path / "g.cu", cwd=tmp_path)
    assert res.rc == 0 and res.err == "", res.err
    text = (tmp_path / "g.cu").read_text()
    start = text.index("for (long long k")   # (the K loop: k__0, or k in a nest of tiles)
    loop = text[start:text.index("croktile_t = a0_buf", start)]   # the K loop up to its swaps
    # (a failed check's line waits for every group before it leaves the kernel)
    kept = "\n".join(line for line in loop.splitlines() if "check_fail" not in line)
    waits = re.findall(r"croktile::wgmma::wait<(\d+)>\(\)", kept)
    assert waits == [str(want)], waits
