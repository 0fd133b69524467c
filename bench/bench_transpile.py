"""Transpile speed: `croktilec -S -t cuda` of a sample against the reference compiler's
transpile of the same program (`choreo -es -t cute`), with where croktilec's time goes.

All figures are wall-clock medians of --runs runs in this session, interleaved so that
machine noise hits each alike:

- python -S -c pass / python -c pass: the interpreter, without and with site (its .pth files);
- imports: what a transpile imports (cli, driver, frontend, the cuda toolchain) over the bare
  interpreter;
- preprocess+split, parse, sema (check and lower to the IR, fills), codegen: each stage once in
  a fresh process, after the imports (their first run: lazy imports and table loads included);
- croktilec fresh: one process per run (CROKTILE_SERVER=0);
- croktilec served: the warm compile server does the run (croktile_driver/driver/server.py); the
  first run starts it and is left out;
- reference: the reference's binary, from --reference, $CHOREO, `choreo` on PATH
  (scripts/build_reference.sh builds it); without one the issue's recorded figure (39 ms on
  the GPU machine) is printed instead of a ratio.

    python bench/bench_transpile.py [--runs 15] [--sample samples/ele_add.co.cpp] [--reference PATH] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORDED_REFERENCE_MS = 39.0   # issue #22, the GPU machine, medians of 15

STAGES = r"""
import json, sys, time
t = time.perf_counter
t0 = t()
from croktile_driver.diagnostics import Diagnostics
from croktile_driver.frontend import pipeline, ir
from croktile_driver.frontend.preprocess import preprocess
from croktile_driver.frontend.splitter import split
from croktile_driver.driver.options import parse_args
from croktile_driver.driver.profiles import load_profiles, select_profile
from croktile_driver.targets import toolchain_for
t1 = t()
path = sys.argv[1]
text = open(path).read()
diag = Diagnostics()
diag.add_source(path, text)
pre = preprocess(text, path, diag, [], [], [])
segs = split(pre, path, diag, None)
t2 = t()
from croktile_driver.frontend.parser import CroktileParser
p = CroktileParser(diag)
fns = [p.parse(s.text, s.loc.file, s.loc.line, s.loc.col, s.end_loc) for s in segs if s.kind == "co"]
t3 = t()
from croktile_driver.frontend.sema.checker import check_function
names = {s.name for s in segs if s.kind in ("co", "co_decl") and s.name}
module = ir.Module([check_function(f, diag, names) for f in fns])
t4 = t()
args = parse_args(["-S", "-t", "cuda", path])
tc = toolchain_for("cuda")(select_profile(load_profiles([]), "cuda", None), args)
tu = pipeline.TranslationUnit(path, pre, segs, fns, module)
tc.check(module, diag)
tc.generate(tu, diag)
t5 = t()
print(json.dumps({"imports (in process)": t1 - t0, "preprocess+split": t2 - t1, "parse": t3 - t2,
                  "sema": t4 - t3, "codegen": t5 - t4}))
"""


def timed(argv, env, cwd) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def server_socket(croktilec: str, env) -> str:
    """The socket of croktilec's server: its name depends on the interpreter as the console
    script names it (its #! line) and on the package it imports, so that interpreter says it."""
    with open(croktilec, "rb") as f:
        interpreter = f.readline()[2:].decode().strip()
    probe = "import sys; sys.argv = ['croktilec']; from croktile_driver.driver.server import socket_path; print(socket_path())"
    return subprocess.run([interpreter, "-c", probe], env=env, capture_output=True, text=True, check=True,
                          stdin=subprocess.DEVNULL, cwd="/").stdout.strip()   # not a source tree's package


def reference_binary(given):
    for candidate in (given, os.environ.get("CHOREO"), shutil.which("choreo")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--sample", default=os.path.join(ROOT, "samples", "ele_add.co.cpp"))
    ap.add_argument("--reference", default=None, help="the reference compiler's binary (choreo)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    args.sample = os.path.abspath(args.sample)   # every run is in a scratch directory: in a source
    # tree, `python -c` would import the package from there (without its generated parser tables)
    croktilec = shutil.which("croktilec") or sys.exit("croktilec is not on PATH (pip install .)")
    py = sys.executable
    fresh = dict(os.environ, CROKTILE_SERVER="0")
    served = dict(os.environ, CROKTILE_SERVER="1")
    ref = reference_binary(args.reference)
    load_before = os.getloadavg()[0]   # the machine is shared: each figure is read at its load
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.cu")
        ref_src = os.path.join(tmp, "sample.co")        # the reference takes .co files
        shutil.copy(args.sample, ref_src)
        cases = {
            "python -S -c pass": [py, "-S", "-c", "pass"],
            "python -c pass": [py, "-c", "pass"],
            "imports": [py, "-c", "import croktile_driver.cli, croktile_driver.driver.jobs, "
                        "croktile_driver.frontend.sema.checker, croktile_driver.frontend.parser, croktile_driver.targets.cuda.toolchain"],
            "croktilec --version": [croktilec, "--version"],
            "croktilec fresh": [croktilec, "-S", "-t", "cuda", args.sample, "-o", out],
            "croktilec served": [croktilec, "-S", "-t", "cuda", args.sample, "-o", out],
        }
        if ref:
            cases["reference"] = [ref, "-t", "cute", "-es", ref_src, "-o", os.path.join(tmp, "ref.cu")]
        listening = server_socket(croktilec, served)
        timed(cases["croktilec served"], served, tmp)     # starts the server
        for _ in range(600):                           # ... and waits until it listens
            if os.path.exists(listening):
                break
            time.sleep(0.1)
        times = {name: [] for name in cases}
        stages = []
        for _ in range(args.runs):
            for name, argv in cases.items():
                times[name].append(timed(argv, served if name == "croktilec served" else fresh, tmp))
            proc = subprocess.run([py, "-c", STAGES, args.sample], env=fresh, cwd=tmp, capture_output=True,
                                  text=True, check=True)
            stages.append(json.loads(proc.stdout))
    ms = {name: statistics.median(v) * 1000 for name, v in times.items()}
    ms["imports"] -= ms["python -c pass"]
    for stage in stages[0]:
        ms[f"  {stage}"] = statistics.median(s[stage] for s in stages) * 1000
    reference_ms = ms.get("reference", RECORDED_REFERENCE_MS)
    result = {"sample": os.path.relpath(args.sample, ROOT), "runs": args.runs, "median_ms": ms,
              "reference": ref or f"none here: the issue's recorded {RECORDED_REFERENCE_MS} ms",
              "fresh_vs_reference": round(ms["croktilec fresh"] / reference_ms, 3),
              "served_vs_reference": round(ms["croktilec served"] / reference_ms, 3),
              "load_average_1min": [load_before, os.getloadavg()[0]]}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for name, value in ms.items():
        print(f"{name:<28} {value:8.1f} ms")
    print(f"reference: {result['reference']}")
    print("load average (1 min) before, after: {:.2f}, {:.2f}".format(*result["load_average_1min"]))
    print(f"croktilec fresh / reference  {result['fresh_vs_reference']}")
    print(f"croktilec served / reference {result['served_vs_reference']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
