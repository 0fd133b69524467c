"""CUDA-event timing of a call on PyTorch's current stream, shared by the GPU benches that
run from Python (bench_gpu_forms.py, bench_gemm.py, bench_attention.py)."""
from __future__ import annotations

import statistics


def timed_ms(fn) -> float:
    """One call of fn between two CUDA events, in ms (the host's work before its launch
    counts: it is what a caller waits for)."""
    import torch
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop)


def median_ms(fn, reps: int) -> float:
    """The median of `reps` timed calls of fn (after one untimed warm-up), in ms."""
    import torch
    fn()
    torch.cuda.synchronize()
    return statistics.median(timed_ms(fn) for _ in range(reps))


def paired_ms(fn, baseline, reps: int):
    """Calls of fn and of the baseline alternated, each timed alone: both see the same
    clocks and temperature (an H100's clock drifts by 10% and more within a run, which
    makes ratios of separate runs noisy). Returns (median ms of fn, median ms of the
    baseline, median of the per-pair ratios baseline / fn)."""
    import torch
    fn()
    baseline()
    torch.cuda.synchronize()
    ours, theirs = [], []
    for _ in range(reps):
        ours.append(timed_ms(fn))
        theirs.append(timed_ms(baseline))
    ratios = [t / o for o, t in zip(ours, theirs)]
    return statistics.median(ours), statistics.median(theirs), statistics.median(ratios)
