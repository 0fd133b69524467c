"""Build time of `croktilec -t cuda -c` against nvcc alone on the source it generates
(issue #20: within 2x of `nvcc -c`).

For each program, interleaved over --runs runs (wall-clock medians):

- croktilec -c: `croktilec -t cuda --profile P -c prog -o x.o`, a fresh process, as a build
  system runs it (transpile, then the nvcc job);
- nvcc -c: the nvcc job that `croktilec -###` prints, run alone on the source `croktilec -S`
  wrote once beforehand (the same flags and includes);
- ratio: croktilec -c / nvcc -c (1.0 = the transpile costs nothing).

Programs: the tensor-core corpus's run_* cases (tests/mma/cases) and, with --reference
ROOT (the reference compiler's source tree), its tests/gpu/end2end/bench/hgemm_*.co.

    python bench/bench_compile_time.py [--runs 3] [--profile cuda-sm90a] [--reference /work/ref] [-k REGEX] [--json]

With --against COMMIT, one program's `croktilec -c` (default: samples/gemm, -t cuda
-arch=sm_90a) now and at COMMIT, each with its own tree, interleaved (issue #39):

    python bench/bench_compile_time.py --against f9b18d1 --runs 5
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Dict, List

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def croktilec() -> List[str]:
    return [sys.executable, "-m", "croktile_driver"]


def programs(reference: str, pattern: str) -> List[str]:
    found = sorted(glob.glob(os.path.join(ROOT, "tests", "mma", "cases", "run_*.co.cpp")))
    if reference:
        found += sorted(glob.glob(os.path.join(reference, "tests", "gpu", "end2end", "bench", "hgemm_*.co")))
    return [p for p in found if re.search(pattern, os.path.basename(p))]


def timed(argv: List[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{shlex.join(argv)} failed:\n{proc.stderr[-2000:]}")
    return elapsed


def nvcc_job(prog: str, flags: List[str], work: str) -> List[str]:
    """The nvcc argv `croktilec -###` prints, reading a source written by `croktilec -S`."""
    source = os.path.join(work, "prog.cu")
    subprocess.run(croktilec() + flags + ["-S", prog, "-o", source], check=True, cwd=ROOT, capture_output=True)
    plan = subprocess.run(croktilec() + flags + ["-###", "-c", prog, "-o", os.path.join(work, "x.o")],
                          capture_output=True, text=True, cwd=ROOT, check=True)
    lines = [shlex.split(line) for line in (plan.stdout + plan.stderr).splitlines() if line.strip()]
    job = next(argv for argv in lines if os.path.basename(argv[0]) == "nvcc")
    gen = next(a for a in job if a.endswith(".gen.cu"))
    return [source if a == gen else os.path.join(work, "y.o") if a == job[job.index("-o") + 1] else a for a in job]


def measure(prog: str, profile: str, runs: int) -> Dict[str, float]:
    flags = ["-t", "cuda", "--profile", profile]
    with tempfile.TemporaryDirectory(prefix="bench_compile.") as work:
        nvcc = nvcc_job(prog, flags, work)
        ours, alone = [], []
        for _ in range(runs):   # interleaved: machine noise hits both alike
            ours.append(timed(croktilec() + flags + ["-c", prog, "-o", os.path.join(work, "x.o")]))
            alone.append(timed(nvcc))
    c, n = statistics.median(ours), statistics.median(alone)
    return {"croktilec_c_s": round(c, 3), "nvcc_c_s": round(n, 3), "ratio": round(c / n, 3)}


def with_tables(tree: str) -> str:
    """`tree`, its parser tables generated (an install writes them; a checkout has none)."""
    if not os.path.isfile(os.path.join(tree, "croktile_driver", "frontend", "_parsetab.py")):
        subprocess.run([sys.executable, "-m", "croktile_driver.frontend.parser", "--write-tables",
                        "croktile_driver/frontend"], cwd=tree, check=True, capture_output=True)
    return tree


def checkout(commit: str, where: str) -> str:
    """A work tree of `commit` at `where` (made once)."""
    if not os.path.isdir(where):
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", where, commit], check=True,
                       capture_output=True)
    return with_tables(where)


def against_commit(commit: str, program: str, flags: List[str], runs: int) -> Dict[str, float]:
    """`croktilec FLAGS -c PROGRAM` here and at `commit` (each tree its own compiler,
    runtime and PROGRAM), interleaved: the medians and their ratio (issue #39: <= 0.4 for
    samples/gemm against f9b18d1)."""
    old_root = checkout(commit, os.path.join(tempfile.gettempdir(), f"croktile-bench-{commit}"))
    trees = {"now": with_tables(ROOT), commit: old_root}
    times: Dict[str, List[float]] = {k: [] for k in trees}
    with tempfile.TemporaryDirectory(prefix="bench_compile.") as work:
        for _ in range(runs):
            for label, tree in trees.items():
                env = dict(os.environ, PYTHONPATH=tree, CROKTILE_SERVER="0",
                           CROKTILE_CACHE_DIR=os.path.join(work, "cache-" + label))
                start = time.perf_counter()
                subprocess.run([sys.executable, "-P", "-m", "croktile_driver", *flags, "-c", program, "-o",
                                os.path.join(work, label + ".o")], cwd=tree, env=env, check=True, capture_output=True)
                times[label].append(time.perf_counter() - start)
    now, old = statistics.median(times["now"]), statistics.median(times[commit])
    return {"now_s": round(now, 3), f"{commit}_s": round(old, 3), "ratio": round(now / old, 3)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", metavar="COMMIT", help="compare one program's build with its build at COMMIT "
                    "(default program: samples/gemm/gemm.co.cpp, -t cuda -arch=sm_90a)")
    ap.add_argument("--program", default="samples/gemm/gemm.co.cpp")
    ap.add_argument("--flags", default="-t cuda -arch=sm_90a")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--profile", default="cuda-sm90a")
    ap.add_argument("--reference", default="", help="the reference compiler's source tree (its bench/hgemm_*.co)")
    ap.add_argument("-k", default="", help="only programs whose file name matches this regex")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not shutil.which("nvcc"):
        print("nvcc is not on PATH", file=sys.stderr)
        return 2
    if args.against:
        r = against_commit(args.against, args.program, shlex.split(args.flags), args.runs)
        print(json.dumps(r) if args.json else
              f"{args.program} ({args.flags} -c): now {r['now_s']:.2f} s, at {args.against} "
              f"{r[args.against + '_s']:.2f} s, ratio {r['ratio']:.2f} (issue #39: <= 0.40)")
        return 0
    results = {}
    for prog in programs(args.reference, args.k):
        results[os.path.basename(prog)] = r = measure(prog, args.profile, args.runs)
        if not args.json:
            print(f"{os.path.basename(prog):48s} croktilec -c {r['croktilec_c_s']:6.2f} s   "
                  f"nvcc -c {r['nvcc_c_s']:6.2f} s   ratio {r['ratio']:.2f}", flush=True)
    if args.json:
        print(json.dumps(results, indent=1))
    elif results:
        print(f"largest ratio {max(r['ratio'] for r in results.values()):.2f} (the issue's bound: 2.0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
