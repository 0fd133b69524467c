"""The default timing of a variant on the caller's arguments: warm-up calls, then the median
of several timed calls. Calls on CUDA arrays are queued on a stream, so on PyTorch tensors
each call is timed by CUDA events on PyTorch's current stream (where the call queues its
work), on CuPy arrays by the wall clock around a synchronised call; host calls are timed
by time.perf_counter. A timer is any ``timer(run, config) -> float`` (smaller is faster):
`run` calls the variant once, `config` is its defines."""
from __future__ import annotations

import time
from typing import Callable, Optional

BUDGET_S = 0.2   # what the timed calls of one variant take at most, unless `reps` is given
MAX_REPS = 100


def timer_for(values, warmup: int = 2, reps: Optional[int] = None) -> Callable:
    """The default timer for a call on `values` (its arguments)."""
    kinds = {_array_kind(v) for v in values} - {None}
    if "torch-cuda" in kinds:
        return lambda run, config: _median(_cuda_event_seconds, run, warmup, reps)
    if "cupy" in kinds:
        import cupy
        sync = cupy.cuda.Device().synchronize
        return lambda run, config: _median(lambda r: _wall_seconds(r, sync), run, warmup, reps)
    return lambda run, config: _median(lambda r: _wall_seconds(r, None), run, warmup, reps)


def _array_kind(value) -> Optional[str]:
    if getattr(getattr(value, "device", None), "type", None) == "cuda":
        return "torch-cuda"
    if type(value).__module__.startswith("cupy"):
        return "cupy"
    return None


def _median(one: Callable, run: Callable, warmup: int, reps: Optional[int]) -> float:
    import statistics
    for _ in range(max(warmup - 1, 0)):
        run()
    first = one(run)   # the last warm-up call, timed to size the repetitions
    if reps is None:
        reps = int(min(MAX_REPS, max(3, BUDGET_S / max(first, 1e-7))))
    return statistics.median(one(run) for _ in range(reps))


def _wall_seconds(run: Callable, sync) -> float:
    if sync:
        sync()
    start = time.perf_counter()
    run()
    if sync:
        sync()
    return time.perf_counter() - start


def _cuda_event_seconds(run: Callable) -> float:
    import torch
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    run()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / 1e3
