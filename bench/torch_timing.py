"""CUDA-event timing of a call on PyTorch's current stream, shared by the GPU benches that
run from Python (bench_gpu_forms.py, bench_gemm.py)."""
from __future__ import annotations

import statistics


def median_ms(fn, reps: int) -> float:
    """The median of `reps` timed calls of fn (after one untimed warm-up), in ms."""
    import torch
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)
