"""samples/attention/decode.co.cpp: decode attention by flash-decoding (issue #35). Built on
cpu for f16 and bf16, head dimensions 128 and 64, causal and not (and on factor), its main
checks itself against a double-precision reference; loaded with croktile.load and compared with a NumPy
reference in SDPA's layout and meaning at decode shapes: 1, 5 and 16 queries (and 20: two
row tiles), caches of 1, 77 and 1000 keys, grouped-query heads 4:1 and 8:1, the keys split
across blocks (the split count comes from the shape; -DBLOCKS changes it). Its cuda source
for sm_90a uses TMA and wgmma; on a GPU machine its build has no spills (ptxas -v) and it
runs its main."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from helpers.croktilec import run_croktilec
from helpers.sdpa import sdpa_reference

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "attention" / "decode.co.cpp"
VARIANTS = [("cpu", "f16", 128, 0), ("cpu", "bf16", 128, 1), ("cpu", "f16", 64, 1), ("factor", "f16", 128, 1)]


def _options(elem: str, hdim: int, causal: int, *more: str):
    return [f"-DELEM={elem}", f"-DHDIM={hdim}", f"-DCAUSAL={causal}", *more]


@pytest.mark.parametrize("target,elem,hdim,causal", VARIANTS,
                         ids=[f"{t}-{e}-d{d}{'-causal' if c else ''}" for t, e, d, c in VARIANTS])
def test_decode_passes(target: str, elem: str, hdim: int, causal: int, tmp_path: Path):
    """The sample's own check on the portable targets (cpu, and factor's simulated NPU)."""
    res = run_croktilec("-t", target, *_options(elem, hdim, causal), SAMPLE, "-o", tmp_path / "d", cwd=tmp_path,
                        timeout=300)
    assert res.rc == 0, res
    run = subprocess.run([str(tmp_path / "d")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "Test Passed" in run.stdout, run.stdout + run.stderr


# (B, Hq, Hkv, Sq, Sk)
SHAPES = [(1, 4, 1, 1, 1), (2, 8, 2, 1, 77), (1, 8, 1, 5, 1000), (2, 16, 2, 16, 77), (1, 4, 1, 20, 1000)]
SHAPE_IDS = ["one-key", "gqa4-q1-k77", "gqa8-q5-k1000", "gqa8-q16-k77", "two-row-tiles"]


@pytest.fixture(scope="module", params=[0, 1], ids=["full", "causal"])
def modules(request):
    """The sample on cpu, twice: the default split count, and at most 3 blocks of keys (a
    long split per block, the last one shorter)."""
    import croktile
    causal = request.param
    return causal, [croktile.load(str(SAMPLE), target="cpu", options=_options("f16", 128, causal, *more))
                    for more in ([], ["-DBLOCKS=3"])]


@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
def test_decode_matches_numpy(modules, shape):
    """Symbolic shapes from the tensors, a scale of our own; every split count gives SDPA's
    result (to f16's rounding of the probabilities)."""
    causal, mods = modules
    b, hq, hkv, sq, sk = shape
    rng = np.random.default_rng(11)
    q = rng.uniform(-1, 1, (b, hq, sq, 128)).astype(np.float16)
    k, v = (rng.uniform(-1, 1, (b, hkv, sk, 128)).astype(np.float16) for _ in range(2))
    ref = sdpa_reference(q, k, v, bool(causal), 0.15)
    for mod in mods:
        out = np.asarray(mod.decode(q, k, v, 0.15), dtype=np.float64)
        assert out.shape == q.shape and np.isfinite(out).all()
        assert np.abs(out - ref).max() < 4e-3


def test_decode_rejects_heads_it_cannot_pack(modules):
    """Query heads of a key/value head must fill the tile's groups of HEADS (4) heads: 2:1
    grouped-query attention is refused with the sample's message, not answered wrongly."""
    import croktile
    _, mods = modules
    q = np.zeros((1, 4, 1, 128), np.float16)
    k = np.zeros((1, 2, 8, 128), np.float16)
    with pytest.raises(croktile.Error, match="multiple of HEADS"):
        mods[0].decode(q, k, k, 0.1)


def _ptxas_profile(tmp_path: Path) -> Path:
    """The built-in cuda-sm90a profile with ptxas's report of registers and spills."""
    f = tmp_path / "toolchains.yaml"
    f.write_text("profiles:\n  sm90a-ptxas:\n    target: cuda\n    cxx: nvcc\n    arch: sm_90a\n"
                 "    flags: [-O2, -std=c++17, -Xptxas=-v]\n    limits: {shared_bytes: 232448}\n")
    return f


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_decode_cuda_uses_tma_and_wgmma(tmp_path: Path):
    res = run_croktilec("-t", "cuda", "-arch=sm_90a", "-S", "-DCAUSAL=1", SAMPLE, "-o", tmp_path / "d.cu",
                        cwd=tmp_path)
    assert res.rc == 0, res
    text = (tmp_path / "d.cu").read_text()
    # the keys, values and the 4 heads' queries by the copy engine (one box of 4 x 16 rows),
    # the partial results out by it; scores and P V on the warp group's tensor cores, the
    # probabilities from registers; the causal mask of rows that repeat every 16
    assert text.count("croktile::tma::load_async(") >= 6 and "croktile::tma::store_async(" in text
    assert "croktile::wgmma::mma_async(" in text and "croktile::wgmma::mma_nmajor_async(" in text
    assert re.search(r"mask_causal\(s, [^;]*, \(long long\)\(16\)\);", text), "the mask's period"


def test_decode_runs_on_gpu(gpu, tmp_path: Path):
    """On the GPU machine: the causal build has no spills (ptxas -v; about a minute of nvcc,
    so here rather than in every CI run), and the sample's own check passes, f16 and causal
    bf16."""
    res = run_croktilec("--toolchain-file", _ptxas_profile(tmp_path), "--profile", "sm90a-ptxas", "-DCAUSAL=1", "-c",
                        SAMPLE, "-o", tmp_path / "d.o", cwd=tmp_path, timeout=600)
    assert res.rc == 0, res
    report = res.out + res.err
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
    assert spills and all(a == "0" and b == "0" for a, b in spills), report
    assert "warning" not in report, report
    for i, options in enumerate((_options("f16", 128, 0), _options("bf16", 128, 1))):
        exe = tmp_path / f"d{i}"
        res = run_croktilec("-t", "cuda", "-arch=sm_90a", *options, SAMPLE, "-o", exe, cwd=tmp_path, timeout=600)
        assert res.rc == 0, res
        run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
        assert run.returncode == 0 and "Test Passed" in run.stdout, run.stdout + run.stderr
