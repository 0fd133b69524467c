"""samples/attention/: the fused attention forward written in the language (issues #25, #35).
Built on cpu for f16 and bf16, head dimensions 64 and 128, causal and not, its main checks
itself against a double-precision reference on small shapes; the same program is loaded
with croktile.load and compared with a NumPy reference in SDPA's layout and meaning
(grouped-query heads, any lengths, fewer queries than keys, one query). Its cuda
build for sm_90a (wgmma with the probabilities as a register A operand, TMA loads) is
compiled where nvcc is; the speed is bench/bench_attention.py's."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from helpers.croktilec import run_croktilec
from helpers.sdpa import sdpa_reference

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "attention" / "attention.co.cpp"
VARIANTS = [("f16", 64, 0), ("f16", 64, 1), ("bf16", 64, 1), ("f16", 128, 0), ("bf16", 128, 1)]


def _options(elem: str, hdim: int, causal: int):
    return [f"-DELEM={elem}", f"-DHDIM={hdim}", f"-DCAUSAL={causal}"]


@pytest.mark.parametrize("elem,hdim,causal", VARIANTS, ids=[f"{e}-d{d}{'-causal' if c else ''}" for e, d, c in VARIANTS])
def test_attention_passes_on_cpu(elem: str, hdim: int, causal: int, tmp_path: Path):
    res = run_croktilec("-t", "cpu", *_options(elem, hdim, causal), SAMPLE, "-o", tmp_path / "a", cwd=tmp_path,
                        timeout=300)
    assert res.rc == 0, res
    run = subprocess.run([str(tmp_path / "a")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "Test Passed" in run.stdout, run.stdout + run.stderr


SHAPES = [(1, 3, 3, 256, 256), (2, 4, 2, 100, 100), (1, 4, 1, 37, 200), (1, 8, 2, 1, 77)]


@pytest.mark.parametrize("causal", [0, 1])
@pytest.mark.parametrize("shape", SHAPES, ids=["whole", "gqa-odd", "prefill-onto-cache", "decode"])
def test_attention_matches_numpy(causal: int, shape, tmp_path: Path):
    """Symbolic shapes from the tensors: [B, Hq, Sq, 64] queries, [B, Hkv, Sk, 64] keys and
    values, lengths the tiles do not divide, grouped-query heads, a scale of our own."""
    import croktile
    mod = croktile.load(str(SAMPLE), target="cpu", options=_options("f16", 64, causal))
    b, hq, hkv, sq, sk = shape
    rng = np.random.default_rng(7)
    q = rng.uniform(-1, 1, (b, hq, sq, 64)).astype(np.float16)
    k, v = (rng.uniform(-1, 1, (b, hkv, sk, 64)).astype(np.float16) for _ in range(2))
    out = np.asarray(mod.attention(q, k, v, 0.2), dtype=np.float64)
    assert out.shape == q.shape
    assert np.abs(out - sdpa_reference(q, k, v, bool(causal), 0.2)).max() < 4e-3


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize("options", [["-DHDIM=64", "-DCAUSAL=1"], ["-DELEM=bf16", "-DHDIM=128"]],
                         ids=["f16-d64-causal", "bf16-d128"])
def test_attention_cuda_compiles(options, tmp_path: Path):
    res = run_croktilec("-t", "cuda", "-arch=sm_90a", "-S", *options, SAMPLE, "-o", tmp_path / "a.cu", cwd=tmp_path)
    assert res.rc == 0, res
    text = (tmp_path / "a.cu").read_text()
    # the probabilities multiply V from registers, V given as keys x columns; TMA loads
    assert "croktile::wgmma::cvt(" in text and "croktile::wgmma::mma_nmajor_async(" in text
    assert "croktile::tma::load_async(" in text
    if "-DELEM=bf16" in options:   # one nvcc build (about 10 s): bf16, a head of two tiles
        res = run_croktilec("-t", "cuda", "-arch=sm_90a", "-c", *options, SAMPLE, "-o", tmp_path / "a.o",
                            cwd=tmp_path, timeout=600)
        assert res.rc == 0 and "warning" not in res.err, res
