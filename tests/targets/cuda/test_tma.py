"""The cuda target's tensor-core and TMA code (issue #20) beyond what the corpus checks
(tests/language/mma: every program there is compiled with -t cuda where nvcc is): which
`tma.copy` takes the copy engine on which arch, and the barrier an `inthreads` block needs."""
from __future__ import annotations

from pathlib import Path

import pytest

from helpers.corpus import CORPUS
from helpers.croktilec import run_croktilec


# A synchronous `inthreads` that writes shared data ends in a barrier of its level's
# instances (toolchains/inthreads.py); cuda has one only where each instance is a thread
# (or warp) of its own, at most 32 of them or whole warps: 40 one-thread instances are
# none of these, an error at the block (found while generating code, so not -fsyntax-only).
UNSYNCABLE = """__co__ auto f(s32 [4, 40] a) {
  s32 [4, 40] out;
  parallel b by 4 : block {
    shared s32 [1, 40] row;
    parallel t by 40 : thread {
      inthreads (t == 0) {
        foreach j in [40]
          row.at(0, j) = a.at(b, j);
      }
      out.at(b, t) = row.at(0, t);
    }
  }
  return out;
}
"""


def test_cuda_inthreads_barrier_needs_whole_warps(tmp_path: Path):
    (tmp_path / "bar.co.cpp").write_text(UNSYNCABLE)
    res = run_croktilec("-t", "cuda", "-S", "bar.co.cpp", "-o", "bar.cu", cwd=tmp_path)
    assert res.rc == 1, res
    assert res.err.splitlines()[:3] == [
        "bar.co.cpp:6:7: error: this 'inthreads' block ends in a barrier of the instances of its level, and on "
        "target 'cuda' each instance must then be a thread (or a warp or warp group) of its own, at most 32 of "
        "them or whole warps; make the level 'group'/'group-4' or its size at most 32 or a multiple of 32, or "
        "use 'inthreads.async' with events",
        "      inthreads (t == 0) {",
        "      ^"], res.err
    assert not (tmp_path / "bar.cu").exists()
    (tmp_path / "bar.co.cpp").write_text(UNSYNCABLE.replace("inthreads", "inthreads.async"))
    assert run_croktilec("-t", "cuda", "-S", "bar.co.cpp", "-o", "bar.cu", cwd=tmp_path).rc == 0


RUN_TMA = CORPUS / "mma" / "run_tma.co.cpp"
TILE_COPY = """__co__ auto twice(f32 [8, 64] a) {
  f32 [8, 64] out;
  parallel p by 2 : block {
    shared f32 [8, 32] t;
    tma.copy a.chunkat(_, p) => t;
    foreach {i, j} in [8, 32]
      t.at(i, j) = t.at(i, j) * 2.0f;
    tma.copy t => out.chunkat(_, p);
  }
  return out;
}
"""


def test_tma_copies_use_the_copy_engine_from_sm_90(tmp_path: Path):
    """On sm_90 and newer each block-level `tma.copy` of run_tma.co.cpp (loads, the double
    buffer's futures, stores, swizzled tiles, the symbolic GEMM's instance) is a bulk
    tensor copy on a map the host encodes once per launch, completed on an mbarrier; the
    kernel keeps the cooperative copy for a launch whose data the engine cannot take."""
    res = run_croktilec("-t", "cuda", "-arch=sm_90a", "-S", RUN_TMA, "-o", "t.cu", cwd=tmp_path)
    assert res.rc == 0, res
    text = (tmp_path / "t.cu").read_text()
    loads, stores = text.count("croktile::tma::load_async("), text.count("croktile::tma::store_async(")
    # mm_swizzled: 2 loads; add_pipelined: 4 loads, 2 stores; twice_stored_async: 1 load, 1 store;
    # gemm_tma's instance: 2 loads, 1 store
    assert (loads, stores) == (9, 4), (loads, stores)
    assert text.count("croktile::mbarrier::wait_parity(") >= loads
    assert text.count("croktile::tma::box_map<") == 2 + 3 + 2 + 3
    # the async store is not waited where it is issued, but before its shared row is
    # loaded again, at its `wait` and before the block ends
    kernel = text[text.index("twice_stored_async__launch0("):]
    kernel = kernel[:kernel.index("\n}\n")]
    issued = kernel.index("croktile::tma::store_async(")
    assert "store_wait_all" not in kernel[issued:issued + 200]
    load = kernel.index("croktile::tma::load_async(")
    assert "store_wait_all<0>" in kernel[:load]
    assert kernel.count("store_wait_all<0>") == 3, kernel
    assert "croktile::cuda::generic_instance(" in text and "block_copy<" in text


@pytest.mark.parametrize("arch, engine", [("sm_90", True), ("sm_80", False)])
def test_tma_copy_engine_by_arch(arch: str, engine: bool, tmp_path: Path):
    """Older GPUs have no copy engine: `tma.copy` is the block's cooperative copy there."""
    (tmp_path / "twice.co.cpp").write_text(TILE_COPY)
    res = run_croktilec("-t", "cuda", f"-arch={arch}", "-S", "twice.co.cpp", "-o", "t.cu", cwd=tmp_path)
    assert res.rc == 0, res
    text = (tmp_path / "t.cu").read_text()
    counts = (text.count("croktile::tma::load_async("), text.count("croktile::tma::store_async("))
    assert counts == ((1, 1) if engine else (0, 0)), counts
    assert ("CUtensorMap" in text) == engine


RUN_TMA_WAITS = CORPUS / "mma" / "run_tma_waits.co.cpp"
WAIT = "croktile::mbarrier::wait_parity("
GUARDED = "if ((croktile_tma_pending >> 0) & 1u) { " + WAIT


def _kernel(text: str, name: str) -> str:
    kernel = text[text.index(f"{name}__launch0("):]
    return kernel[:kernel.index("\n}\n")]


def test_a_tma_future_waited_twice_waits_on_one_phase_once(tmp_path: Path):
    """A load's mbarrier phase completes once (issue #36): the second wait of a future
    waited on every path is no code (it waited for a phase that nothing completes, and
    hung), and a wait of a future complete on some paths only (a loop's later iterations,
    a `tma.any` before its first copy) waits only where the barrier's bit says a load is
    in flight. run_tma_waits.co.cpp itself runs in the corpus (and on a GPU)."""
    res = run_croktilec("-t", "cuda", "-arch=sm_90a", "-S", RUN_TMA_WAITS, "-o", "w.cu", cwd=tmp_path)
    assert res.rc == 0, res
    text = (tmp_path / "w.cu").read_text()
    twice = _kernel(text, "twice")
    assert twice.count(WAIT) == 1 and "croktile_tma_pending" not in twice
    assert twice.count("/* wait f: complete already */") == 1
    for name in ("looped", "prologue"):
        kernel = _kernel(text, name)
        loop = kernel[kernel.index("for (long long k__0"):]
        assert kernel.count(WAIT) == kernel.count(GUARDED) >= 1, name
        assert "croktile_tma_pending |= 1u << 0;" in kernel and "croktile_tma_pending &= ~(1u << 0);" in loop
        assert GUARDED in loop, name
    assert _kernel(text, "looped").count("/* wait f: complete already */") == 1   # after the loop
    assert _kernel(text, "prologue").count("/* wait f: complete already */") == 1   # the second after it
    branches = _kernel(text, "branches")   # one wait on each arm, none after them
    assert branches.count(WAIT) == 2 and "croktile_tma_pending" not in branches
    assert branches.count("/* wait f: complete already */") == 1
