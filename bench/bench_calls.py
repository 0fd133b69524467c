"""What a __co__ call costs beside its kernel, from Python and from C++ (issue #22).

    python bench/bench_calls.py                 # builds and runs; needs an NVIDIA GPU and PyTorch
    python bench/bench_calls.py --json out.json # also writes the figures as JSON
    python bench/bench_calls.py --cpp-only      # the C++ figures only (no PyTorch)
    python bench/bench_calls.py --exe ./call_costs  # the C++ figures of a program built already

bench/call/call_costs.co.cpp is built twice by this checkout's driver (`-t cuda --profile
cuda-sm90a`; $CROKTILE_BENCH_PROFILE names another profile): as a program, whose figures
are C++ calls, and as a Python module (croktile.load), whose functions are called here
against torch.add on the same tensors. Every ratio comes from one run (one process for
the Python figures, one for the C++ figures); each row says its target.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "bench", "call", "call_costs.co.cpp")
PROFILE = os.environ.get("CROKTILE_BENCH_PROFILE", "cuda-sm90a")

# (key, what, target: (comparison, bound) or None)
ROWS = [
    ("py_tiny_us_per_call", "Python: tiny add, host time per call (us)", None),
    ("torch_tiny_us_per_call", "Python: torch.add, same tensors (us)", None),
    ("py_tiny_over_torch", "Python: tiny add / torch.add", ("<=", 1.0)),
    ("py_tiny_out_us_per_call", "Python: tiny add with out= (us)", None),
    ("py_stream_ms", "Python: streaming add, call + synchronize (ms)", None),
    ("torch_stream_ms", "Python: torch.add, same tensors (ms)", None),
    ("py_stream_speedup_over_torch", "Python: streaming add, torch.add time / ours", (">=", 1.0)),
    ("graph_chain_replay_us_per_call", "Python: torch.cuda.graph of 100 chained calls, replay (us/call)", None),
    ("graph_chain_eager_us_per_call", "Python: the same 100 calls eager (us/call)", None),
    ("graph_chain_replay_over_eager", "Python: graph replay / eager chain", ("<", 1.0)),
    ("graph_chain_correct", "Python: graph replay equals the eager chain (1 = yes)", ("==", 1.0)),
    ("cpp_tiny_return_us_per_call", "C++: tiny add, returning, per call (us)", ("<", 3.0)),
    ("cpp_tiny_into_us_per_call", "C++: tiny add, destination passing, per call (us)", ("<", 3.0)),
    ("cpp_tiny_into_synchronized_us_per_call", "C++: tiny add into, N calls then synchronize (us/call)", None),
    ("cpp_raw_launch_us_per_call", "C++: raw <<<>>> launch of a kernel doing nothing, same grid (us)", None),
    ("cpp_tiny_into_over_raw_launch", "C++: tiny add into / raw launch", None),
    ("cpp_stream_kernel_ms", "C++: streaming add, kernel alone (ms)", None),
    ("cpp_stream_into_over_kernel", "C++: streaming add into, call + sync / kernel", ("<=", 1.05)),
    ("cpp_stream_return_over_kernel", "C++: streaming add returning, call + sync / kernel", ("<=", 1.05)),
    ("pinned_h2d_GBps", "C++: pinned host-to-device bandwidth (GB/s)", None),
    ("pinned_d2h_GBps", "C++: pinned device-to-host bandwidth (GB/s)", None),
    ("cpp_stream_host_ms", "C++: streaming add on host arrays (ms)", None),
    ("cpp_stream_host_over_bus", "C++: host arrays / (bytes / pinned bandwidth)", ("<=", 1.3)),
    ("staged_ms", "C++: staged add (dma.copy => shared), kernel (ms)", None),
    ("staged_hand_ms", "C++: hand-written staged add, kernel (ms)", None),
    ("staged_hand_over_croktile", "C++: staged add, hand-written time / ours", (">=", 0.97)),
]


def build_program(out_dir: str) -> str:
    exe = os.path.join(out_dir, "call_costs")
    subprocess.run([sys.executable, "-m", "croktile_driver", "-t", "cuda", "--profile", PROFILE, "-O2",
                    SOURCE, "-o", exe], check=True, cwd=ROOT)
    return exe


def cpp_figures(exe: str) -> dict:
    """The program's figures; a wrong result (its exit status 1 and message) leaves figures out."""
    res = subprocess.run([exe], capture_output=True, text=True)
    if res.returncode:
        print(f"{exe}: exit status {res.returncode}: {res.stderr.strip()}")
    return {k: float(v) for k, v in (line.split() for line in res.stdout.splitlines() if line.strip())}


def per_call_us(fn, calls: int, sync) -> float:
    sync()
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    sync()
    return (time.perf_counter() - t) * 1e6 / calls


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def python_figures(calls: int) -> dict:
    import torch
    import croktile

    mod = croktile.load(SOURCE, target="cuda", profile=PROFILE)
    sync = torch.cuda.synchronize
    out = {}

    a = torch.rand(4, 256, device="cuda")
    b = torch.rand(4, 256, device="cuda")
    c = torch.empty(4, 256, device="cuda")
    try:
        mod.tiny_add(a, b, out=c)
        into_call = lambda: mod.tiny_add(a, b, out=c)   # noqa: E731
    except TypeError:   # a module built before out= existed
        into_call = None
    for _ in range(200):
        mod.tiny_add(a, b), torch.add(a, b)
    ours, theirs, into = [], [], []
    for _ in range(7):   # interleaved rounds
        ours.append(per_call_us(lambda: mod.tiny_add(a, b), calls, sync))
        theirs.append(per_call_us(lambda: torch.add(a, b), calls, sync))
        if into_call:
            into.append(per_call_us(into_call, calls, sync))
    assert torch.equal(torch.from_dlpack(mod.tiny_add(a, b)), a + b)
    if into_call:
        assert torch.equal(c, a + b)
        out["py_tiny_out_us_per_call"] = median(into)
    out["py_tiny_us_per_call"] = median(ours)
    out["torch_tiny_us_per_call"] = median(theirs)
    out["py_tiny_over_torch"] = median(ours) / median(theirs)

    shape = (8192, 8, 256, 4)
    sa = torch.rand(shape, device="cuda")
    sb = torch.rand(shape, device="cuda")
    mine, ref = [], []
    for _ in range(21):
        sync()
        t = time.perf_counter()
        r = mod.stream_add(sa, sb)
        sync()
        mine.append((time.perf_counter() - t) * 1e3)
        del r
        t = time.perf_counter()
        r = torch.add(sa, sb)
        sync()
        ref.append((time.perf_counter() - t) * 1e3)
        del r
    assert torch.equal(torch.from_dlpack(mod.stream_add(sa, sb)), sa + sb)
    out["py_stream_ms"] = median(mine)
    out["torch_stream_ms"] = median(ref)
    out["py_stream_speedup_over_torch"] = median(ref) / median(mine)

    # a graph of 100 chained calls: PyTorch's capture pattern (side-stream warm-up, capture, replay)
    x0 = torch.rand(4, 256, device="cuda")

    def chain(x):
        for _ in range(100):
            x = torch.from_dlpack(mod.tiny_add(x, b))
        return x

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        chain(x0)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = chain(x0)
    x0.copy_(torch.rand(4, 256, device="cuda"))   # replay on new inputs
    g.replay()
    sync()
    out["graph_chain_correct"] = float(torch.equal(y, chain(x0)))
    replay = [per_call_us(g.replay, 50, sync) / 100 for _ in range(5)]
    eager = [per_call_us(lambda: chain(x0), 50, sync) / 100 for _ in range(5)]
    out["graph_chain_replay_us_per_call"] = median(replay)
    out["graph_chain_eager_us_per_call"] = median(eager)
    out["graph_chain_replay_over_eager"] = median(replay) / median(eager)
    return out


def meets(value: float, target) -> str:
    if target is None:
        return ""
    op, bound = target
    ok = {"<=": value <= bound, ">=": value >= bound, "<": value < bound, "==": value == bound}[op]
    return f"{'MEETS' if ok else 'MISSES'} {op} {bound:g}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--cpp-only", action="store_true", help="only the C++ figures (no PyTorch)")
    ap.add_argument("--calls", type=int, default=5000, help="calls per timed round of the tiny add in Python")
    ap.add_argument("--exe", help="call_costs built already (croktilec -t cuda -O2 bench/call/call_costs.co.cpp)")
    args = ap.parse_args(argv)
    figures = {}
    if args.exe:
        figures.update(cpp_figures(args.exe))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            figures.update(cpp_figures(build_program(tmp)))
    failed = False
    if not args.cpp_only:
        try:
            figures.update(python_figures(args.calls))
        except Exception as e:   # a wrong result: say so, and still print the C++ figures
            print(f"Python figures: {type(e).__name__}: {e}")
            failed = True
    try:
        import torch
        figures["gpu"] = torch.cuda.get_device_name()
    except Exception:   # no PyTorch: the figures stand without the name
        pass
    print(f"GPU: {figures.get('gpu', 'unknown')}")
    for key, what, target in ROWS:
        if key in figures:
            print(f"{what:<68} {figures[key]:>10.4g}  {meets(figures[key], target)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
    return 1 if failed or any(k not in figures for k, _, target in ROWS if target and not args.cpp_only) else 0


if __name__ == "__main__":
    sys.exit(main())
