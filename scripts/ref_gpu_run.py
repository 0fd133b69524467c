#!/usr/bin/env python3
"""Builds the reference compiler's (Choreo's) whole GPU programs with croktilec, runs them
and checks their output against their FileCheck `CHECK` lines.

The programs are tests/gpu/end2end/*.co (and bench/) without tensor-core operations
(`mma.*`, `tma.*`); the reference builds them with `-t cute` and pipes the run into
FileCheck. Here each is built with `croktilec -t TARGET` (cuda on a GPU machine; cpu
anywhere, the reference target) and run; the output must satisfy the file's CHECK,
CHECK-NEXT, CHECK-DAG, CHECK-NOT and CHECK-COUNT-N lines (`--match-full-lines` when the
RUN line asks for it). Builds run in parallel, runs one at a time (one GPU). Not part of
CI: it needs the reference's sources.

    python scripts/ref_gpu_run.py /path/to/choreo                 # -t cuda, every program
    python scripts/ref_gpu_run.py /path/to/choreo -t cpu -v       # on the cpu target, with output
    python scripts/ref_gpu_run.py /path/to/choreo -k fp8 -j 8 --profile cuda-sm90a

On cuda each program is built for the `-arch=` its RUN line names (one that names none
for the GPU of this machine, as nvidia-smi reports it), unless --profile says.

Exit status 0 when every program passes. $CROKTILEC overrides the driver, as for
scripts/ref_conformance.py.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import List, Optional, Tuple

TENSOR_CORE_OPS = re.compile(r"\b(mma|tma)\s*\.")
DIRECTIVE = re.compile(r"//\s*CHECK(?P<kind>-NEXT|-DAG|-NOT|-COUNT-\d+)?:(?P<pattern>.*)$")


@dataclass
class Directive:
    kind: str        # "", "-NEXT", "-DAG", "-NOT", "-COUNT-N"
    pattern: str
    line: int        # in the .co file


@dataclass
class Result:
    path: str
    stage: str       # "build", "run", "check", "ok"
    detail: str
    output: str = ""


def programs(root: str, pattern: str, tensor_core: bool = False) -> List[str]:
    """The end2end programs without tensor-core operations, or (tensor_core) those with."""
    base = os.path.join(root, "tests", "gpu", "end2end")
    files = sorted(glob.glob(os.path.join(base, "*.co")) +
                   [f for sub in ("bench", "ptx_mma", "wmma") for f in glob.glob(os.path.join(base, sub, "*.co"))])
    out = []
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        if bool(TENSOR_CORE_OPS.search(text)) == tensor_core and re.search(pattern, os.path.relpath(f, base)):
            out.append(f)
    return out


def directives(text: str) -> List[Directive]:
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        m = DIRECTIVE.search(line)
        if m:
            found.append(Directive(m["kind"] or "", m["pattern"].strip(), n))
    return found


def compile_pattern(pattern: str, full_line: bool) -> "re.Pattern[str]":
    """FileCheck's pattern: literal text with {{regex}} parts; [[VAR]] uses match anything."""
    parts, pos = [], 0
    for m in re.finditer(r"\{\{(.*?)\}\}|\[\[(?:[^\]:]*:)?(.*?)\]\]", pattern):
        parts.append(re.escape(pattern[pos:m.start()]))
        parts.append(f"(?:{m.group(1)})" if m.group(1) is not None else f"(?:{m.group(2) or '.*?'})")
        pos = m.end()
    parts.append(re.escape(pattern[pos:]))
    body = "".join(parts)
    return re.compile(rf"^\s*{body}\s*$" if full_line else body)


def check_output(output: str, checks: List[Directive], full_line: bool) -> Optional[str]:
    """None when the output satisfies the directives, else what failed."""
    lines = output.splitlines()
    pos = 0              # the next line a CHECK may match
    nots: List[Directive] = []
    i = 0
    while i < len(checks):
        d = checks[i]
        rx = compile_pattern(d.pattern, full_line)
        if d.kind == "-NOT":
            nots.append(d)
            i += 1
            continue
        if d.kind == "-DAG":
            group = []
            while i < len(checks) and checks[i].kind == "-DAG":
                group.append(checks[i])
                i += 1
            used, last = set(), pos - 1
            for g in group:
                grx = compile_pattern(g.pattern, full_line)
                hit = next((k for k in range(pos, len(lines)) if k not in used and grx.search(lines[k])), None)
                if hit is None:
                    return f"line {g.line}: CHECK-DAG: {g.pattern!r} not found"
                used.add(hit)
                last = max(last, hit)
            start, pos = pos, last + 1
            if _violated(nots, lines[start:min(used)]):
                return _violated(nots, lines[start:min(used)])
            nots = []
            continue
        if d.kind == "-NEXT":
            if pos >= len(lines) or not rx.search(lines[pos]):
                got = lines[pos] if pos < len(lines) else "<end of output>"
                return f"line {d.line}: CHECK-NEXT: {d.pattern!r} is not the next line ({got!r})"
            pos += 1
        elif d.kind.startswith("-COUNT-"):
            for _ in range(int(d.kind[7:])):
                hit = next((k for k in range(pos, len(lines)) if rx.search(lines[k])), None)
                if hit is None:
                    return f"line {d.line}: CHECK-COUNT: {d.pattern!r} found fewer times"
                pos = hit + 1
        else:
            hit = next((k for k in range(pos, len(lines)) if rx.search(lines[k])), None)
            if hit is None:
                return f"line {d.line}: CHECK: {d.pattern!r} not found"
            bad = _violated(nots, lines[pos:hit])
            if bad:
                return bad
            nots, pos = [], hit + 1
        i += 1
    return _violated(nots, lines[pos:])


def _violated(nots: List[Directive], lines: List[str]) -> Optional[str]:
    for d in nots:
        rx = compile_pattern(d.pattern, False)
        for line in lines:
            if rx.search(line):
                return f"line {d.line}: CHECK-NOT: {d.pattern!r} found: {line!r}"
    return None


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def croktilec() -> List[str]:
    """This checkout's driver (run from its root) unless $CROKTILEC names another."""
    if os.environ.get("CROKTILEC"):
        return shlex.split(os.environ["CROKTILEC"])
    return [sys.executable, "-m", "croktile_driver"]


RUN_ARCH = re.compile(r"//\s*RUN:.*?\s-arch=(sm_\w+)", re.IGNORECASE)


def gpu_arch() -> Optional[str]:
    """sm_XY of the first GPU here (nvidia-smi), or None without one."""
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.match(r"(\d+)\.(\d+)", p.stdout.strip()) if p.returncode == 0 else None
    return f"sm_{m.group(1)}{m.group(2)}" if m else None


def run_line_arch(path: str, default: Optional[str]) -> List[str]:
    """`-arch=` as the program's RUN line names it (the reference builds it for that); for
    a program that names none (REQUIRES: TARGET-GPU: any GPU), the GPU it runs on."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        m = RUN_ARCH.search(fh.read())
    arch = m.group(1).lower() if m else default
    return [f"-arch={arch}"] if arch else []


def build(path: str, target: str, flags: List[str], workdir: str, timeout: float,
          default_arch: Optional[str] = None) -> Tuple[str, Optional[str]]:
    exe = os.path.join(workdir, os.path.basename(os.path.dirname(path)) + "_" +
                       os.path.basename(path).replace(".co", ""))
    if target == "cuda" and not any(f == "--profile" or f.startswith("-arch=") for f in flags):
        flags = flags + run_line_arch(path, default_arch)
    cmd = croktilec() + ["-t", target] + flags + [path, "-o", exe]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO)
    except subprocess.TimeoutExpired:
        return exe, f"build timed out after {timeout:.0f} s"
    if p.returncode != 0:
        first = next((l for l in (p.stderr + p.stdout).splitlines() if "error" in l), (p.stderr or p.stdout).strip())
        return exe, first.strip()
    return exe, None


def run_one(path: str, exe: str, timeout: float) -> Result:
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    full_line = "--match-full-lines" in text
    try:
        p = subprocess.run([exe, "--execute"], capture_output=True, text=True, timeout=timeout,
                           env=dict(os.environ, CHOREO_DISABLE_TIMING="1"))
    except subprocess.TimeoutExpired:
        return Result(path, "run", f"timed out after {timeout:.0f} s")
    output = p.stdout
    failure = check_output(output, directives(text), full_line)
    if failure:
        status = f" (exit status {p.returncode})" if p.returncode else ""
        return Result(path, "check", failure + status, output + p.stderr)
    if p.returncode != 0:
        return Result(path, "run", f"exit status {p.returncode} after the expected output", output + p.stderr)
    return Result(path, "ok", "", output)


def sanitize(result: Result, exe: str, tool: str, timeout: float) -> Result:
    """The program again under compute-sanitizer: its ERROR SUMMARY must be 0 errors."""
    try:
        p = subprocess.run(["compute-sanitizer", f"--tool={tool}", "--error-exitcode=99", exe, "--execute"],
                           capture_output=True, text=True, timeout=timeout * 4,
                           env=dict(os.environ, CHOREO_DISABLE_TIMING="1"))
    except subprocess.TimeoutExpired:
        return Result(result.path, tool, f"timed out under compute-sanitizer --tool={tool}")
    if p.returncode != 0:
        summary = next((l for l in p.stdout.splitlines()[::-1] if "ERROR SUMMARY" in l), f"exit {p.returncode}")
        return Result(result.path, tool, summary.strip(), p.stdout[-2000:])
    return result


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reference", help="the reference compiler's source tree (holds tests/gpu/end2end)")
    ap.add_argument("-t", "--target", default="cuda", help="croktilec target (default cuda)")
    ap.add_argument("--profile", help="croktilec toolchain profile (e.g. cuda-sm90a)")
    ap.add_argument("-k", default="", help="only programs whose path (under end2end/) matches this regex")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1, help="parallel builds")
    ap.add_argument("-v", action="store_true", help="print the output of each failing program")
    ap.add_argument("--tensor-core", action="store_true",
                    help="the programs with mma/tma operations (tests/gpu/end2end, bench/, ptx_mma/, wmma/) instead")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per build and per run")
    ap.add_argument("--sanitize", metavar="TOOLS",
                    help="also run each passing program under compute-sanitizer with these tools "
                         "(comma-separated: memcheck,racecheck,synccheck); a report with errors fails it")
    args = ap.parse_args(argv)

    files = programs(os.path.abspath(args.reference), args.k, args.tensor_core)
    flags = ["--profile", args.profile] if args.profile else []
    if not files:
        print("no programs found", file=sys.stderr)
        return 2
    results: List[Result] = []
    with tempfile.TemporaryDirectory(prefix="ref_gpu_run.") as work:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.j)) as pool:
            here = gpu_arch() if args.target == "cuda" else None
            built = list(pool.map(lambda f: build(f, args.target, flags, work, args.timeout, here), files))
        for path, (exe, error) in zip(files, built):
            result = Result(path, "build", error) if error else run_one(path, exe, args.timeout)
            for tool in (args.sanitize.split(",") if args.sanitize and result.stage == "ok" else []):
                result = sanitize(result, exe, tool, args.timeout) if result.stage == "ok" else result
            results.append(result)
    for r in results:
        name = os.path.relpath(r.path, os.path.join(os.path.abspath(args.reference), "tests", "gpu", "end2end"))
        print(f"{'PASS' if r.stage == 'ok' else 'FAIL'}  {name}" + (f"  [{r.stage}] {r.detail}" if r.detail else ""))
        if args.v and r.stage in ("check", "run") and r.output:
            print("    | " + "\n    | ".join(r.output.rstrip().splitlines()[-20:]))
    passed = sum(r.stage == "ok" for r in results)
    built_ok = sum(r.stage != "build" for r in results)
    print(f"\n-t {args.target}: built {built_ok}/{len(results)}, passed {passed}/{len(results)} "
          f"({100 * passed // len(results)}%)")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
