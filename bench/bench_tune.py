"""Build and tuning times of samples/gemm from Python (issue #39), on a GPU machine.

Each step runs in a fresh process with its own cache directory, as a user's would:

- load, cold: ``croktile.load`` of one variant with an empty cache (nanobind's library
  built too), then of a second, new variant in the same process (nanobind's library
  cached: what a new variant costs; the issue's bound: 4 s);
- tune: ``croktile.autotune`` over 16 variants (BN x STAGES x GROUP), its first call
  building all of them in parallel and timing each (bound: 40 s);
- cached: a second process's first call with the same key takes the cached choice
  (bound: 50 ms beyond loading that one variant's module);
- sweep: every variant timed again apart (CUDA events, more repetitions): the choice
  against the best of them (bound: 1.02x).

    python bench/bench_tune.py [--shape 4096,4096,4096] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(ROOT, "samples", "gemm", "gemm.co.cpp")
SPACE = {"BN": [128, 256], "STAGES": [2, 3], "GROUP": [1, 4, 8, 16]}
LOAD = dict(target="cuda", profile="cuda-sm90a")

_PRELUDE = textwrap.dedent(f"""
    import json, sys, time
    import torch
    import croktile
    M, N, K = {{shape}}
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(N, K, device="cuda", dtype=torch.float16)
    SAMPLE, SPACE, LOAD = {SAMPLE!r}, {SPACE!r}, {LOAD!r}
""")

_STEPS = {
    "load": """
        t = time.perf_counter(); croktile.load(SAMPLE, defines={"BN": 128, "STAGES": 3}, **LOAD)
        cold = time.perf_counter() - t
        t = time.perf_counter(); croktile.load(SAMPLE, defines={"BN": 256, "STAGES": 2}, **LOAD)
        print(json.dumps({"load_cold_s": cold, "load_new_variant_s": time.perf_counter() - t}))
    """,
    "tune": """
        tuned = croktile.autotune(SAMPLE, SPACE, **LOAD)
        t = time.perf_counter(); c = tuned.gemm(a, b); torch.cuda.synchronize()
        took = time.perf_counter() - t
        print(json.dumps({"tune_s": took, "choice": dict(tuned.choice("gemm", a, b).config)}))
    """,
    "cached": """
        tuned = croktile.autotune(SAMPLE, SPACE, **LOAD)
        t = time.perf_counter(); c = tuned.gemm(a, b); torch.cuda.synchronize()
        first = time.perf_counter() - t
        t = time.perf_counter(); croktile.load(SAMPLE, defines=dict(tuned.choice("gemm", a, b).config), **LOAD)
        print(json.dumps({"cached_first_call_s": first, "one_load_s": time.perf_counter() - t,
                          "choice": dict(tuned.choice("gemm", a, b).config)}))
    """,
    "sweep": """
        import itertools
        out = {}
        for values in itertools.product(*SPACE.values()):
            config = dict(zip(SPACE, values))
            try:
                mod = croktile.load(SAMPLE, defines=config, **LOAD)
            except croktile.BuildError:
                continue
            for _ in range(3): mod.gemm(a, b)
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            times = []
            for _ in range(30):
                start.record(); mod.gemm(a, b); stop.record(); stop.synchronize()
                times.append(start.elapsed_time(stop))
            times.sort()
            out[json.dumps(config, sort_keys=True)] = times[len(times) // 2]
        print(json.dumps({"sweep_ms": out}))
    """,
}


def step(name: str, shape, cache: str) -> dict:
    code = _PRELUDE.replace("{shape}", repr(tuple(shape))) + textwrap.dedent(_STEPS[name])
    env = dict(os.environ, CROKTILE_CACHE_DIR=cache)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"bench_tune.py: step {name} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", default="4096,4096,4096")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    shape = [int(x) for x in args.shape.split(",")]
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench_tune.") as work:
        cold, tune = os.path.join(work, "cold"), os.path.join(work, "tune")
        results.update(step("load", shape, cold))
        # a normal install: nanobind's library is built once, not per search
        os.makedirs(tune)
        if os.path.isdir(os.path.join(cold, "nanobind")):
            shutil.copytree(os.path.join(cold, "nanobind"), os.path.join(tune, "nanobind"))
        results.update(step("tune", shape, tune))
        results.update(step("cached", shape, tune))
        sweep = step("sweep", shape, tune)["sweep_ms"]
    best = min(sweep.values())
    chosen = sweep.get(json.dumps(results["choice"], sort_keys=True))
    results.update(sweep_best_ms=best, chosen_ms=chosen, chosen_over_best=(chosen / best) if chosen else None,
                   variants_built=len(sweep))
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print(f"croktile.load, cold cache:        {results['load_cold_s']:.2f} s")
        print(f"croktile.load, a new variant:     {results['load_new_variant_s']:.2f} s   (bound 4 s)")
        print(f"autotune, 16 variants:            {results['tune_s']:.2f} s   (bound 40 s), "
              f"{len(sweep)} built; choice {results['choice']}")
        print(f"second process, cached choice:    {results['cached_first_call_s'] * 1e3:.1f} ms "
              f"(of which loading the variant {results['one_load_s'] * 1e3:.1f} ms; bound 50 ms beyond it)")
        print(f"choice against the sweep's best:  {results['chosen_over_best']:.3f}x   (bound 1.02)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
