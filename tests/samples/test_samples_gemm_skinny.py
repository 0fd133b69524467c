"""samples/gemm/gemm_skinny.co.cpp: the GEMM for few rows of A (issue #35: decode steps and
small batches), B's rows on wgmma's 64-row side (swap AB) and K split among blocks whose f32
partial products a second parallel step adds in a fixed order. Loaded with croktile.load on
the cpu target and compared with NumPy at sizes no tile divides (M 1, 7, 64; odd N and K,
K split and not), for the row tiles the documented table picks; the split result is the
same bits on every call; bf16 runs the sample's own check. Its cuda build for sm_90a (`-S`)
loads with the copy engine, multiplies with wgmma and has the reduction step; the speed is
bench/bench_gemm.py's (the `skinny` variants)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from helpers.croktilec import run_croktilec

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "gemm" / "gemm_skinny.co.cpp"

# (M, N, K): one row, a few rows, a row tile and a bit; N and K past whole tiles (a K
# tail of 37 too); the first three split K in parts (few tiles); the last two take the
# whole-K form (as many tiles as SMs; a short K)
SHAPES = [(1, 200, 1000), (7, 72, 4133), (64, 136, 777), (9, 132 * 64 + 5, 300), (3, 100, 40)]


def _splits(m: int, n: int, k: int, mt: int, wg: int = 1, bk: int = 64) -> int:
    """The sample's split count (its header comment; 1: the whole-K form), to check that the
    cases cover both forms."""
    kt, bn, mp = -(-k // bk), 64 * wg, -(-m // mt) * mt
    tiles = -(-n // bn) * -(-m // mt)
    per, unit = -(-kt * tiles // 264), 4 * -(-mp // 32)
    return 1 if tiles >= 132 else -(-kt // (-(-per // unit) * unit))


@pytest.fixture(scope="module")
def skinny():
    """The sample built for the cpu target with MT = 8 and MT = 64 (the table's rows for
    M <= 8 and M <= 64), as croktile.load gives it to a Python user."""
    import croktile
    return {mt: croktile.load(str(SAMPLE), target="cpu", options=[f"-DMT={mt}"]) for mt in (8, 64)}


def _inputs(m: int, n: int, k: int):
    rng = np.random.default_rng(m * 7 + n + k)
    return (rng.uniform(-1, 1, (m, k)).astype(np.float16), rng.uniform(-1, 1, (n, k)).astype(np.float16))


@pytest.mark.parametrize("mt", [8, 64])
@pytest.mark.parametrize("shape", SHAPES, ids=["m1", "m7-ktail", "m64", "m9-whole-k", "m3-short-k"])
def test_skinny_gemm_matches_numpy(skinny, mt: int, shape):
    m, n, k = shape
    a, b = _inputs(m, n, k)
    out = np.asarray(skinny[mt].gemm(a, b))
    assert out.shape == (m, n) and out.dtype == np.float16
    exact = a.astype(np.float64) @ b.astype(np.float64).T
    # f32 sums of exact products, rounded once to f16 (half an ulp: 2^-11 relative)
    assert (np.abs(out - exact) / (1 + np.abs(exact))).max() < 2e-3


def test_the_cases_split_k_and_do_not():
    for mt in (8, 64):
        splits = [_splits(m, n, k, mt) for m, n, k in SHAPES]
        assert splits[:3] == [s for s in splits[:3] if s > 1] and splits[3:] == [1, 1], (mt, splits)


def test_split_k_is_deterministic(skinny):
    """The parts are added in the order of the split, never by atomics: two calls agree bit
    for bit (M 5, K split in 16 parts)."""
    m, n, k = 5, 64, 64 * 64
    assert _splits(m, n, k, 8) == 16
    a, b = _inputs(m, n, k)
    first = np.asarray(skinny[8].gemm(a, b)).copy()
    second = np.asarray(skinny[8].gemm(a, b))
    assert first.tobytes() == second.tobytes()


def test_skinny_gemm_bf16_passes_on_cpu(tmp_path: Path):
    """bf16 (NumPy has no such type: the sample's main checks it), two row tiles of MT 16."""
    res = run_croktilec("-t", "cpu", "-DELEM=bf16", "-DMT=16", SAMPLE, "-o", tmp_path / "g", cwd=tmp_path,
                        timeout=300)
    assert res.rc == 0, res
    run = subprocess.run([str(tmp_path / "g")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "Test Passed" in run.stdout, run.stdout + run.stderr


@pytest.mark.parametrize("options", [["-DMT=8"], ["-DMT=128", "-DELEM=bf16"]], ids=["mt8-f16", "mt128-bf16"])
def test_skinny_gemm_cuda_uses_tma_wgmma_and_a_reduction(options, tmp_path: Path):
    res = run_croktilec("-t", "cuda", "-arch=sm_90a", "-S", *options, SAMPLE, "-o", tmp_path / "g.cu", cwd=tmp_path)
    assert res.rc == 0, res
    assert "never waited" not in res.err, res.err
    text = (tmp_path / "g.cu").read_text()
    # three launches: the whole-K form; the split form's products, then the sum of the parts
    at = [text.index(f"gemm__launch{i}(") for i in range(3)]
    whole, product, reduction = text[at[0]:at[1]], text[at[1]:at[2]], text[at[2]:]
    mt = int(options[0].split("=")[1])
    for form in (whole, product):   # B's tile on wgmma's 64-row side, A's as its n = MT
        assert f"croktile::wgmma::acc<float, 64, {mt}>" in form
        assert "croktile::tma::load_async(" in form and "croktile::wgmma::mma_async(" in form
    # whole K: C^T into shared memory, the warp groups' threads transpose it, the copy
    # engine stores C; split: the f32 part straight to the workspace
    assert "croktile_tid % 128" in whole and "croktile::tma::store_async(" in whole
    assert "croktile::wgmma::store(" in product and "croktile::tma::store_async(" not in product
    # the sum over the parts, one loop in order, and the clipped store of C by the copy engine
    assert "for (long long q__0 = 0;" in reduction and "croktile::tma::store_async(" in reduction
