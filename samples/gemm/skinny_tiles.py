"""gemm_skinny.co.cpp's row tile MT (wgmma's n, a macro) for a product of M rows of A by N
rows of B: the table of its header and of docs/language/tensor-cores.md ("Skinny shapes"),
written once for the Python that loads the sample (samples/llama/llama_layer.py,
bench/bench_gemm.py)."""

SPLIT_BELOW = 132   # the sample's: K is split where B has fewer tiles of 64 rows than this


def skinny_mt(m: int, n: int) -> int:
    """MT for m rows of A and n of B, or 0 past 256 rows (samples/gemm/gemm.co.cpp's shapes).
    The smallest of 8, 16, 32 that holds m; for m up to 64, two row tiles of 32 where K is
    split, else one of 64 (measured on an H200: a second row tile reads B again, which only
    the split-K shapes' extra blocks pay for); then 128 (m > 128: two row tiles)."""
    for mt in (8, 16, 32):
        if m <= mt:
            return mt
    if m <= 64:
        return 32 if -(-n // 64) < SPLIT_BELOW else 64
    return 128 if m <= 256 else 0
