#!/usr/bin/env python3
"""Runs the reference compiler's (Choreo's) front-end test programs through croktilec and
prints how often the two agree.

The reference's tests are lit files: a `// RUN: not choreo ...` line, a `// CHECK: error:`
line, an expected error count, the text of one of its internal aborts or `XFAIL: *` (its own
run is expected to fail) marks a program the reference rejects (illegal); any other file with a RUN line is one it accepts (a file
without one is a disabled test and is left out). Each file is one program. An accepted
program must pass `croktilec -fsyntax-only` (`-E` where its RUN line only preprocesses,
`--dump-ast` where it only parses: `choreo -e`; `-t cuda` where it is built for the
reference's cuda target, `-t cute`, through its GPU checks); an illegal one must fail
with a diagnostic (exit 1). Not part of CI: it needs the reference's sources
(`git clone https://github.com/LancerLab/choreo`).

    python scripts/ref_conformance.py /path/to/choreo            # summary
    python scripts/ref_conformance.py /path/to/choreo -v         # every disagreement
    python scripts/ref_conformance.py /path/to/choreo --strict   # -e programs checked fully
    python scripts/ref_conformance.py /path/to/choreo --gpu      # tests/gpu: -t cuda -c (-S for -es)
"""
from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import List, Optional

FRONTEND_SUITES = ["parse", "infer", "check", "norm", "pp"]
RUN_LINE = re.compile(r"//\s*RUN:(.*)")
# a FileCheck line that expects an error: the program is illegal even when its RUN line
# pipes the reference's output into FileCheck without `not`
EXPECTED_ERROR = re.compile(r"//\s*CHECK(-COUNT-\d+)?:\s*(\S*:\s*)?error:")   # `CHECK: ab.c:35.10: error:` too
TENSOR_CORE_OPS = re.compile(r"\b(mma|tma)\s*\.")


@dataclass
class Outcome:
    path: str
    suite: str
    illegal: bool
    status: int          # croktilec's exit status; -1 for a time-out
    first_error: str     # the first diagnostic line, for the report

    @property
    def agrees(self) -> bool:
        return self.status == 1 if self.illegal else self.status == 0


def run_lines(text: str) -> List[str]:
    return [m.group(1).strip() for m in RUN_LINE.finditer(text)]


# the reference's closing count of errors, expected by a CHECK line (not a CHECK-NOT)
ERROR_COUNT = re.compile(r"//\s*CHECK(-NEXT)?:\s*Totally\s+([1-9]\d*)\s+errors?\s+ha(ve|s)\s+been\s+detected")


# the reference's internal aborts (`choreo_unreachable`), whose text a test expects: the
# reference rejects the program, though the CHECK line has no "error:"
ABORT_MESSAGES = re.compile(r"//\s*CHECK:\s*unexpect floating-point types in promote")


# `// XFAIL: *`: the reference's own run of the test is expected to fail (parse/with_increment.co:
# its grammar has an INCR token but no rule for `incr ... while`), so it rejects the program
EXPECTED_FAILURE = re.compile(r"//\s*XFAIL:\s*\*")


def is_illegal(text: str) -> bool:
    return (any(r.startswith("not ") for r in run_lines(text)) or bool(EXPECTED_ERROR.search(text))
            or bool(ERROR_COUNT.search(text)) or bool(ABORT_MESSAGES.search(text))
            or bool(EXPECTED_FAILURE.search(text)))


def first_error(output: str) -> str:
    for line in output.splitlines():
        if "error:" in line:
            return line.strip()
    lines = [line for line in output.splitlines() if line.strip()]
    return lines[0].strip() if lines else ""


def croktilec() -> List[str]:
    """This checkout's driver unless $CROKTILEC names another."""
    if os.environ.get("CROKTILEC"):
        return shlex.split(os.environ["CROKTILEC"])
    return [sys.executable, "-m", "croktile_driver"]


def check_frontend(path: str, suite: str, timeout: float, strict: bool = False) -> Outcome:
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    runs = run_lines(text)
    illegal = is_illegal(text)
    preprocess_only = bool(runs) and all(re.search(r"(^|\s)(-E|copp)\b", r) for r in runs)
    # `choreo -e` dumps the AST after parsing and stops ("Semantic check is ignored"): such a
    # test checks the parse only, which --dump-ast does here
    parse_only = not strict and bool(runs) and all(re.search(r"(^|\s)(-e|--dump-ast)\b", r) for r in runs)
    stage = (["-E", "-o", os.devnull] if preprocess_only else ["--dump-ast"] if parse_only
             else ["-fsyntax-only"])
    # a test built for the reference's cuda target (`-t cute`) is checked with our cuda
    # target's rules, unless it stops before the reference's GPU checks (`-sa=pbfill`, or
    # `-i`: type inference only)
    if stage == ["-fsyntax-only"] and any(re.search(r"-t\s*(cute|cuda)\b", r) and not
                                          re.search(r"-sa=(pbfill)\b|(^|\s)-i\b", r) for r in runs):
        stage += ["-t", "cuda", "--profile", "cuda-sm90a"]
    return _run(croktilec() + stage + [path], path, suite, illegal, timeout)


def check_gpu(path: str, suite: str, timeout: float, workdir: str) -> Outcome:
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    # `choreo -es` stops at the generated source (its programs call kernels they do not
    # define): `-S` here; otherwise compile with nvcc
    runs = run_lines(text)
    emit_only = bool(runs) and all(re.search(r"(^|\s)-es\b", r) for r in runs)
    out = os.path.join(workdir, re.sub(r"\W", "_", path) + (".cu" if emit_only else ".o"))
    cmd = croktilec() + ["-t", "cuda", "--profile", "cuda-sm90a", "-S" if emit_only else "-c", path, "-o", out]
    return _run(cmd, path, suite, is_illegal(text), timeout)


def _run(cmd: List[str], path: str, suite: str, illegal: bool, timeout: float) -> Outcome:
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        return Outcome(path, suite, illegal, -1, f"timed out after {timeout:g} s")
    return Outcome(path, suite, illegal, proc.returncode, first_error(proc.stdout))


def collect(root: str, suites: List[str], pattern: str) -> List[tuple]:
    files = []
    for suite in suites:
        base = os.path.join(root, "tests", suite)
        for dirpath, _, names in os.walk(base):
            for name in sorted(names):
                path = os.path.join(dirpath, name)
                if name.endswith(".co") and re.search(pattern, name) and _has_run_line(path):
                    files.append((path, suite))
    return sorted(files)


def _has_run_line(path: str) -> bool:
    """A file without a RUN line (one disabled as `// 1RUN:`) is not a test of the reference."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return bool(run_lines(f.read()))


def report(outcomes: List[Outcome], verbose: bool) -> None:
    suites = sorted({o.suite for o in outcomes}, key=lambda s: (s not in FRONTEND_SUITES, s))
    print(f"{'suite':8} {'accepted by reference':>24} {'illegal':>16}")
    for suite in suites + ["all"]:
        group = [o for o in outcomes if suite in ("all", o.suite)]
        legal = [o for o in group if not o.illegal]
        bad = [o for o in group if o.illegal]
        print(f"{suite:8} {_ratio(legal):>24} {_ratio(bad):>16}")
    crashes = [o for o in outcomes if o.status not in (0, 1)]
    if crashes:
        print(f"\n{len(crashes)} runs ended with neither 0 nor 1 (internal error, time-out):")
        for o in crashes:
            print(f"  {o.path}: status {o.status}: {o.first_error}")
    if verbose:
        print("\nfalse errors (the reference accepts these):")
        for o in outcomes:
            if not o.illegal and not o.agrees:
                print(f"  {o.first_error or o.path}")
        print("\nillegal programs croktilec accepts:")
        for o in outcomes:
            if o.illegal and not o.agrees:
                print(f"  {o.path}")


def _ratio(group: List[Outcome]) -> str:
    if not group:
        return "-"
    ok = sum(o.agrees for o in group)
    return f"{ok}/{len(group)} ({100.0 * ok / len(group):.0f}%)"


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reference", help="a checkout of the reference compiler (LancerLab/choreo)")
    ap.add_argument("--gpu", action="store_true",
                    help="compile tests/gpu programs without mma/tma operations with -t cuda -c")
    ap.add_argument("-k", default="", help="only files whose name matches this regular expression")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2, help="parallel runs")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per program")
    ap.add_argument("--strict", action="store_true",
                    help="check the reference's parse-only (-e) programs with -fsyntax-only too")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every disagreement")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="croktile-conformance-") as workdir:
        if args.gpu:
            files = [(p, s) for p, s in collect(args.reference, ["gpu"], args.k)
                     if not TENSOR_CORE_OPS.search(open(p, encoding="utf-8", errors="replace").read())]
            job = lambda f: check_gpu(f[0], os.path.basename(os.path.dirname(f[0])), args.timeout, workdir)
        else:
            files = collect(args.reference, FRONTEND_SUITES, args.k)
            job = lambda f: check_frontend(f[0], f[1], args.timeout, args.strict)
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.j) as pool:
            outcomes = list(pool.map(job, files))
    report(outcomes, args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
