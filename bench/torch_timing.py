"""CUDA-event timing of a call on PyTorch's current stream, shared by the GPU benches that
run from Python (bench_gpu_forms.py, bench_gemm.py, bench_attention.py)."""
from __future__ import annotations

import statistics

BURST = 10   # calls per sample where the benches time kernels back to back


def timed_ms(fn, burst: int = 1) -> float:
    """`burst` calls of fn back to back between two CUDA events, in ms per call. One call
    alone counts the host's work before its launch (what a caller waits for); in a burst
    the host runs ahead of the GPU, so the time is the kernels' (what a model's stream of
    calls sees)."""
    import torch
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(burst):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / burst


def median_ms(fn, reps: int) -> float:
    """The median of `reps` timed calls of fn (after one untimed warm-up), in ms."""
    import torch
    fn()
    torch.cuda.synchronize()
    return statistics.median(timed_ms(fn) for _ in range(reps))


def paired_ms(fn, baseline, reps: int, burst: int = 1):
    """Calls of fn and of the baseline alternated, each timed alone: both see the same
    clocks and temperature (an H100's clock drifts by 10% and more within a run, which
    makes ratios of separate runs noisy); each sample is a burst of `burst` calls
    (timed_ms). Returns (median ms of fn, median ms of the
    baseline, median of the per-pair ratios baseline / fn)."""
    import torch
    fn()
    baseline()
    torch.cuda.synchronize()
    ours, theirs = [], []
    for _ in range(reps):
        ours.append(timed_ms(fn, burst))
        theirs.append(timed_ms(baseline, burst))
    ratios = [t / o for o, t in zip(ours, theirs)]
    return statistics.median(ours), statistics.median(theirs), statistics.median(ratios)


def kernel_table(fn, reps: int = 10) -> dict:
    """{kernel name: ms per call} of what fn runs on the GPU (kernels, memsets, copies), from
    torch.profiler's device events over `reps` calls after a warm-up call, longest first."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    table: dict = {}
    for e in prof.events():
        if e.device_type.name == "CUDA":
            table[e.name] = table.get(e.name, 0.0) + e.device_time / 1000 / reps
    return dict(sorted(table.items(), key=lambda kv: -kv[1]))


def kernel_ms(fn, reps: int = 10) -> float:
    """The GPU time of one call of fn: the sum of kernel_table's rows."""
    return sum(kernel_table(fn, reps).values())
