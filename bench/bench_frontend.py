#!/usr/bin/env python3
"""Benchmark of the Croktile frontend as users and build systems run it.

Measures, on the spec-1 element-wise add example (device kernel, ``__co__`` function
and host ``main``):

* wall time of ``croktilec -fsyntax-only FILE`` as a subprocess, N runs, Python
  start-up included (the ``croktilec`` on PATH, else ``python -m croktile_driver``);
* the same for ``python -c pass`` (bare interpreter start-up) as a baseline, and the
  frontend's overhead over it;
* wall time of ``python -c "import croktile_driver.cli"`` in a fresh process;
* in-process: the time to construct ``CroktileParser`` (loading/building the LALR
  tables) and whether the shipped tables are current (``tables_are_current()``).

Usage: ``python bench/bench_frontend.py [--runs N] [--json] [--checkout]``.  Target: median of the
``croktilec -fsyntax-only`` runs under 100 ms on the 2-core CI machine (bench/README.md).

``--scaling`` measures instead how the frontend's time grows with the length of one
function: in-process ``run_frontend`` (preprocess, split, parse, check, lower) on a
``__co__`` function of N statements, one per line, and on one i-tuple literal of N
elements, for N = 10k and 100k (``--sizes``). Linear means the 100k time is about ten
times the 10k time (``ratio``); the grammar once copied lists at every item (quadratic).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

REPO = Path(__file__).resolve().parent.parent
TARGET_MS = 100.0

# the spec-1 element-wise add, exactly as the sample ships it
ELE_ADD = (REPO / "samples" / "ele_add.co.cpp").read_text()


def percentile(values: List[float], q: float) -> float:
    """Nearest-rank percentile (q in [0, 100]) of a non-empty list."""
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, int(round(q / 100.0 * len(ordered) + 0.5)) - 1))
    return ordered[k]


def summarize(samples_s: List[float]) -> Dict[str, float]:
    ms = [s * 1000.0 for s in samples_s]
    return {"runs": len(ms), "median_ms": statistics.median(ms), "min_ms": min(ms),
            "p90_ms": percentile(ms, 90), "max_ms": max(ms)}


def time_subprocesses(cmds: Dict[str, List[str]], runs: int, env: Dict[str, str], cwd: str,
                      warmup: int = 2) -> Dict[str, List[float]]:
    """Wall time of each command, ``runs`` times after ``warmup`` untimed rounds.

    The commands are interleaved (one of each per round), so a drift in machine load
    affects the frontend and its baseline alike.
    """
    samples: Dict[str, List[float]] = {name: [] for name in cmds}
    for i in range(warmup + runs):
        for name, cmd in cmds.items():
            start = time.perf_counter()
            proc = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
            elapsed = time.perf_counter() - start
            if proc.returncode != 0:
                raise SystemExit(f"bench: {' '.join(cmd)} exited {proc.returncode}:\n"
                                 f"{proc.stderr.decode(errors='replace')}")
            if i >= warmup:
                samples[name].append(elapsed)
    return samples


def in_process_parser(reps: int, use_checkout: bool) -> Dict[str, object]:
    """Time to construct a CroktileParser, and whether the shipped tables are current."""
    if use_checkout:
        sys.path.insert(0, str(REPO))
    import croktile_driver
    from croktile_driver.diagnostics import Diagnostics
    from croktile_driver.frontend import parser as co_parser
    from croktile_driver.frontend.parser import CroktileParser

    try:
        current = bool(co_parser.tables_are_current())
        current_error = None
    except Exception as exc:  # noqa: BLE001 -- report, don't abort the benchmark
        current, current_error = None, f"{type(exc).__name__}: {exc}"
    try:
        import importlib.util
        shipped = importlib.util.find_spec(co_parser.TABLE_MODULE) is not None
    except Exception:  # noqa: BLE001
        shipped = False

    cache = getattr(co_parser, "_PARSER_CACHE", None)
    samples = []
    for i in range(reps + 1):
        if isinstance(cache, dict):
            cache.clear()  # measure a cold construction every time
        start = time.perf_counter()
        CroktileParser(Diagnostics())
        elapsed = time.perf_counter() - start
        if i:  # the first one also pays one-off imports
            samples.append(elapsed)
    result: Dict[str, object] = summarize(samples)
    result.update(package=os.path.dirname(croktile_driver.__file__), tables_shipped=shipped,
                  tables_are_current=current)
    if current_error:
        result["tables_are_current_error"] = current_error
    return result


SCALING_SHAPES = {
    # a function of n statements, one per line
    "statements": lambda n: ("__co__ int f(int r) {\n" + "".join(f"  int v{i} = r + {i};\n" for i in range(n))
                             + "  return r;\n}\n"),
    # one i-tuple literal of n elements on one line
    "ituple_elements": lambda n: ("__co__ void f() {\n  ituple t = {"
                                  + ", ".join(str(i % 7 + 1) for i in range(n)) + "};\n}\n"),
}


def scaling(sizes: List[int], reps: int, use_checkout: bool) -> Dict[str, object]:
    """Seconds of in-process ``run_frontend`` per shape and size (the best of ``reps``, after
    an untimed warm-up run), and the growth ratio."""
    if use_checkout:
        sys.path.insert(0, str(REPO))
    import io
    from croktile_driver.diagnostics import Diagnostics
    from croktile_driver.frontend.pipeline import run_frontend

    def timed(text: str) -> float:
        diag = Diagnostics(stream=io.StringIO())
        start = time.perf_counter()
        run_frontend(text, "scaling.co.cpp", diag)
        elapsed = time.perf_counter() - start
        if diag.errors:
            raise SystemExit(f"bench: {diag.messages[0]}")
        return elapsed

    results: Dict[str, object] = {}
    for shape, make in SCALING_SHAPES.items():
        timed(make(1000))   # imports, parser tables
        rows = []
        for n in sizes:
            text = make(n)
            elapsed = min(timed(text) for _ in range(reps))
            rows.append({"n": n, "seconds": elapsed, "us_per_item": elapsed / n * 1e6})
        results[shape] = {"runs": rows, "ratio": rows[-1]["seconds"] / rows[0]["seconds"],
                          "size_ratio": sizes[-1] / sizes[0]}
    return results


def print_scaling(results: Dict[str, object]) -> None:
    print(f"{'shape':18s} {'n':>8s} {'seconds':>9s} {'us/item':>9s}")
    for shape, res in results.items():
        for row in res["runs"]:
            print(f"{shape:18s} {row['n']:8d} {row['seconds']:9.2f} {row['us_per_item']:9.1f}")
        print(f"{shape:18s} time ratio {res['ratio']:.1f} for a size ratio of {res['size_ratio']:.0f} "
              f"(linear: about equal)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=30, help="timed subprocess runs (default 30)")
    ap.add_argument("--parser-reps", type=int, default=20,
                    help="in-process CroktileParser constructions (default 20)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--checkout", action="store_true",
                    help="benchmark this checkout (python -m croktile_driver with PYTHONPATH set "
                         "to the repository) even when a croktilec is on PATH")
    ap.add_argument("--scaling", action="store_true",
                    help="time the frontend on one function of 10k and 100k statements and an "
                         "i-tuple of as many elements, in-process, instead")
    ap.add_argument("--sizes", type=lambda v: [int(x) for x in v.split(",")], default=[10_000, 100_000],
                    help="sizes for --scaling, comma-separated (default 10000,100000)")
    ap.add_argument("--scaling-reps", type=int, default=2,
                    help="timed runs per size for --scaling, the best counts (default 2)")
    args = ap.parse_args(argv)
    if args.runs < 1 or args.parser_reps < 1:
        ap.error("--runs and --parser-reps must be positive")
    if args.scaling:
        if len(args.sizes) < 2 or min(args.sizes) < 1 or args.scaling_reps < 1:
            ap.error("--sizes needs at least two positive sizes, --scaling-reps a positive count")
        use_checkout = args.checkout or shutil.which("croktilec") is None
        results = scaling(sorted(args.sizes), args.scaling_reps, use_checkout)
        if args.json:
            print(json.dumps(results, indent=2))
        else:
            print_scaling(results)
        return 0

    env = dict(os.environ)
    exe = None if args.checkout else shutil.which("croktilec")
    if exe:
        # The installed driver, as users run it; everything else measures that package too.
        driver_cmd, driver_desc = [exe], f"croktilec on PATH ({exe})"
    else:
        # No installed `croktilec`: run the checkout's driver.
        env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"]
                                         if env.get("PYTHONPATH") else "")
        driver_cmd = [sys.executable, "-m", "croktile_driver"]
        why = "--checkout" if args.checkout else "no croktilec on PATH"
        driver_desc = f"{sys.executable} -m croktile_driver from {REPO} ({why})"

    with tempfile.TemporaryDirectory(prefix="croktile-bench-") as tmp:
        src = Path(tmp) / "ele_add.co.cpp"
        src.write_text(ELE_ADD)
        samples = time_subprocesses({
            "frontend": driver_cmd + ["-fsyntax-only", str(src)],
            "bare": [sys.executable, "-c", "pass"],
            "import": [sys.executable, "-c", "import croktile_driver.cli"],
        }, args.runs, env, tmp)
    frontend, bare, imp = (summarize(samples[k]) for k in ("frontend", "bare", "import"))
    parser = in_process_parser(args.parser_reps, use_checkout=exe is None)

    results = {
        "driver": driver_desc,
        "python": sys.version.split()[0],
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "croktilec_fsyntax_only": frontend,
        "python_c_pass": bare,
        "import_croktile_driver_cli": imp,
        "frontend_overhead_over_bare_python": {
            "ratio": frontend["median_ms"] / bare["median_ms"],
            "delta_ms": frontend["median_ms"] - bare["median_ms"],
        },
        "import_overhead_over_bare_python_ms": imp["median_ms"] - bare["median_ms"],
        "tileflow_parser_construction": parser,
        "target_median_ms": TARGET_MS,
        "meets_target": frontend["median_ms"] < TARGET_MS,
    }
    if args.json:
        print(json.dumps(results, indent=2))
        return 0

    print(f"driver : {driver_desc}")
    print(f"package: {parser['package']}")
    print(f"python : {results['python']}   machine: {results['machine']}")
    print()
    header = f"{'measurement':44s} {'median':>9s} {'min':>9s} {'p90':>9s}   runs"
    print(header)
    print("-" * len(header))
    rows = [("croktilec -fsyntax-only ele_add.co.cpp", frontend),
            ("python -c pass (bare start-up)", bare),
            ('python -c "import croktile_driver.cli"', imp),
            ("CroktileParser(Diagnostics()) in-process", parser)]
    for name, r in rows:
        print(f"{name:44s} {r['median_ms']:7.1f}ms {r['min_ms']:7.1f}ms {r['p90_ms']:7.1f}ms"
              f"   {r['runs']}")
    print()
    ovh = results["frontend_overhead_over_bare_python"]
    print(f"frontend overhead over bare python start-up: {ovh['ratio']:.2f}x "
          f"(+{ovh['delta_ms']:.1f} ms median)")
    print(f"import croktile_driver.cli over bare start-up: "
          f"+{results['import_overhead_over_bare_python_ms']:.1f} ms median")
    cur = parser["tables_are_current"]
    line = f"shipped parser tables present: {parser['tables_shipped']}; tables_are_current(): {cur}"
    if parser.get("tables_are_current_error"):
        line += f" (raised {parser['tables_are_current_error']})"
    print(line)
    verdict = "MEETS" if results["meets_target"] else "MISSES"
    print(f"target: median < {TARGET_MS:.0f} ms incl. Python start-up -> {verdict} "
          f"({frontend['median_ms']:.1f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
