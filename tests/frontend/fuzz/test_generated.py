"""Random well-formed tileflow programs (tests/frontend/fuzz/generator.py) must be accepted.

* ``test_generated_programs_are_accepted``: ``GENERATED`` programs run through every
  frontend stage in-process (what ``croktilec -fsyntax-only`` runs). Each must finish
  within ``PER_INPUT_LIMIT_S`` (a SIGALRM stops a hang), raise nothing but the
  documented ``FatalError`` and report no error: the generator builds them type- and
  shape-correct, so any error is a wrong rejection. Every ``CLI_EVERY``-th one also goes
  through ``cli.main(['-fsyntax-only', FILE])``, which must exit 0.
* ``test_injected_errors_are_reported``: ``INJECTED`` programs, each with one error put
  in at a random place (``generator.INJECTIONS``), must report exactly that error at its
  line: no error is lost and none is added by what surrounds it.
* ``test_generated_programs_emit_code``: ``EMITTED`` programs per target (device
  functions in ``__cok__`` for opencl and factor) through ``croktilec -t T -S``
  in-process: code generation must not fail either.
* ``test_runnable_programs_match_the_model``: ``RUNNABLE`` generated complete programs
  (random tilings, sync/async copies, double buffering, masks, where-aliases, symbolic
  shapes, loops of launches, outer-level code beside an inner parallel), all in one file, built with ``-t cpu`` and run: every result element must
  equal what the Python model of the generator computes; the same file built for
  ``opencl`` (when an OpenCL platform is installed) and ``factor -kt`` (also run with
  slow DMA engines, so that a missing wait shows) must print the same. A function with
  symbolic shapes is also called with a shape its tiling does not divide, which must
  throw ``croktile::runtime_error``.

A failure names the seed and holds the program text; ``python3 tests/frontend/fuzz/generator.py
SEED`` (``--runnable``, ``--cok``) writes the same program again.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import io
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from croktile_driver import cli
from helpers.croktilec import run_croktilec
from helpers.platforms import opencl_problem
from helpers.targets import SLOW_DMA
from . import generator
from .harness import InputTimeout, parser_tables, run_in_process, time_limit

# ~8 ms a program on the 2-core machine (twice that while it is busy): GENERATED programs
# take ~16 s; the -S runs of EMITTED programs x 4 targets ~10 s (opencl runs clang on each
# device program); building the RUNNABLE programs (one file, three targets in parallel) and
# running them ~12 s. Keep GENERATED in the thousands; lower the others if this file stops
# running well under a minute.
GENERATED = 2000
EMITTED = 40
INJECTED = 400
RUNNABLE = 24
PER_INPUT_LIMIT_S = 2.0
CLI_EVERY = 25
MAX_FAILURES = 5       # distinct failures reported per test (the report stays readable)

TARGETS = {"cpu": [], "cuda": [], "opencl": [], "factor": ["-kt"]}


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    with parser_tables(tmp_path_factory.mktemp("parsetab")):
        yield


def _report(seed, text: str, problem: str, how: str) -> str:
    return (f"=== generated program, seed {seed} ({how})\n"
            f"reproduce: python3 tests/frontend/fuzz/generator.py {seed}{_flags(how)} > gen.co.cpp && "
            f"python3 -m croktile_driver -fsyntax-only --debug gen.co.cpp\n"
            f"{problem}\n--- program ---\n{text}--- end of program ---")


def _flags(how: str) -> str:
    """The generator's command-line flags for a program made as ``how`` says."""
    return "".join(f" {flag}" for flag in re.findall(r"--(?:inject \w+|cok|feature \w+=\d)", how))


def _errors(output: str):
    return [line for line in output.splitlines() if ": error: " in line or "internal compiler error" in line]


def test_generator_is_deterministic():
    assert [generator.generate(s) for s in range(20)] == [generator.generate(s) for s in range(20)]
    assert len({generator.generate(s) for s in range(20)}) == 20


def test_generator_covers_the_language():
    """The constructs the brief lists all occur in the first few hundred programs."""
    texts = "\n".join(generator.generate(s) for s in range(300))
    for construct in (r"parallel \w+ by [^{]*\{[^}]*parallel", r"\bwhere \w+ <-> \w+", r"foreach [\w, ]+ if \(",
                      r"swap\(", r"\bwait \w+", r"call \w+<", r"dma\.copy\.async", r"=> shared;", r"=> global;",
                      r"\bshared \w+ \[", r"\blocal \w+ \[", r"mdspan<\d> \w+", r"\[\(\d\)", r"% ?#\w+",
                      r"__co__ auto", r"__co__ int", r"__co__ \w+ \[", r"\bituple \w+ =", r"\w+ = \{x\d+",
                      r"\w+ / \{\d", r"\|\w+(\.span)?\|", r"\bfloat in\d", r"\[M\b", r"#define GEN_C",
                      r"\.data\b", r"\.span\(\d\)", r"\bin sp\d+", r"\bin #idx\d+", r"return \w+;", r"\?", r"<<",
                      r"#if 0", r"namespace gen\d+", r"/\* c \*/", r"\r\n", r"__co__[^;{]*;\n"):
        assert re.search(construct, texts), f"no generated program has {construct!r}"


def test_generated_programs_are_accepted(tables, tmp_path):
    failures, seen = [], set()
    slowest = (0.0, -1)
    started = time.perf_counter()
    for seed in range(GENERATED):
        text = generator.generate(seed)
        filename = f"gen_{seed}.co.cpp"
        problem, diag, printed, elapsed = run_in_process(text, filename, PER_INPUT_LIMIT_S)
        slowest = max(slowest, (elapsed, seed))
        if problem is None and (diag.errors or _errors(printed)):
            problem = "a well-formed program is rejected:\n" + printed
        if problem is None and seed % CLI_EVERY == 0:
            path = tmp_path / filename
            path.write_text(text)
            problem = _cli(["-fsyntax-only", str(path)])
        if problem is None:
            continue
        key = _failure_key(problem)
        if key in seen:
            continue
        seen.add(key)
        failures.append(_report(seed, text, problem, "frontend"))
        if len(failures) >= MAX_FAILURES:
            break
    print(f"{GENERATED} generated programs in {time.perf_counter() - started:.1f} s, "
          f"slowest seed {slowest[1]} {slowest[0] * 1000:.1f} ms")
    assert not failures, f"{len(failures)} distinct failure(s):\n\n" + "\n\n".join(failures)


def test_injected_errors_are_reported(tables):
    """A generated program with one error put in (``generator.INJECTIONS``: a call or
    `local` data outside `parallel`, a redefinition, a wait on a synchronous copy, a read
    before the wait, also after a masked wait, a bound that does not divide, a constant that
    overflows) gets exactly that error, at its line, whatever surrounds it."""
    kinds = sorted(generator.INJECTIONS)
    failures, seen = [], set()
    for seed in range(INJECTED):
        kind = kinds[seed % len(kinds)]
        text = generator.generate(seed, inject=kind)
        line = next(i for i, l in enumerate(text.splitlines(), 1) if generator.INJECTED in l)
        filename = f"gen_{seed}.co.cpp"
        problem, _, printed, _ = run_in_process(text, filename, PER_INPUT_LIMIT_S)
        if problem is None:
            errors = _errors(printed)
            expected = generator.INJECTIONS[kind][0]
            if not any(e.startswith(f"{filename}:{line}:") and expected in e for e in errors):
                problem = f"no error containing {expected!r} at line {line}:\n{printed}"
            elif any(not e.startswith(f"{filename}:{line}:") for e in errors):
                problem = f"errors beside the one at line {line}:\n{printed}"
        if problem is None or kind in seen:
            continue
        seen.add(kind)
        failures.append(_report(seed, text, problem, f"--inject {kind}"))
    assert not failures, f"{len(failures)} failure(s):\n\n" + "\n\n".join(failures)


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_generated_programs_emit_code(tables, tmp_path, target):
    failures, seen = [], set()
    cok = target in ("opencl", "factor")
    features = {"templates": target != "opencl"}  # OpenCL C has no templates
    for seed in range(EMITTED):
        text = generator.generate(seed, features, cok=cok)
        path = tmp_path / f"gen_{seed}.co.cpp"
        path.write_text(text)
        problem = _cli(["-t", target, *TARGETS[target], "-S", str(path), "-o", str(tmp_path / f"gen_{seed}.out")])
        if problem is None:
            continue
        key = _failure_key(problem)
        if key not in seen:
            seen.add(key)
            flags = ["--cok"] if cok else []
            flags += [f"--feature {k}={int(v)}" for k, v in sorted(features.items())]
            failures.append(_report(seed, text, problem, f"-t {target} -S; generator {' '.join(flags)}"))
        if len(failures) >= MAX_FAILURES:
            break
    assert not failures, f"{len(failures)} distinct failure(s):\n\n" + "\n\n".join(failures)


def _cli(argv) -> str:
    """None when ``croktilec ARGV`` (in-process) succeeds, else what went wrong."""
    err, out = io.StringIO(), io.StringIO()
    try:
        with time_limit(PER_INPUT_LIMIT_S * 5), contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            rc = cli.main(argv + ["--debug"])
    except InputTimeout:
        return f"HANG in croktilec {' '.join(argv)}"
    if rc != 0:
        return f"croktilec {' '.join(argv)} exited {rc}:\n{err.getvalue()}{out.getvalue()}"
    return None


_FRAME_RE = re.compile(r'^\s*File "([^"]+)", line (\d+)', re.M)


def _failure_key(problem: str) -> str:
    """The kind of failure: the innermost frame of a crash, else the first error's message."""
    if problem.startswith("HANG"):
        return "HANG"
    frames = _FRAME_RE.findall(problem)
    if frames:
        return f"crash at {os.path.basename(frames[-1][0])}:{frames[-1][1]}"
    errors = _errors(problem)
    first = errors[0].split("error:", 1)[-1] if errors else problem.splitlines()[0]
    return re.sub(r"'[^']*'|\d+", "_", first)[:120]


# ---------------------------------------------------------------------------------
# Generated programs that run
# ---------------------------------------------------------------------------------

def _opencl_available() -> str:
    """'' when OpenCL programs can be built and run here, else why not."""
    return opencl_problem()




def _build_and_run(src: Path, target: str, flags, work: Path, run_envs):
    """Builds ``src`` for ``target`` and runs it once per environment in ``run_envs``:
    (problem or None, {environment label: stdout})."""
    exe = work / f"app_{target}"
    try:
        res = run_croktilec("-t", target, *flags, str(src), "-o", str(exe), cwd=work, timeout=300)
    except AssertionError as exc:  # run_croktilec saw a traceback or an internal error
        return f"croktilec -t {target} {' '.join(flags)} crashed:\n{exc}", None
    if res.rc != 0:
        return f"croktilec -t {target} {' '.join(flags)} exited {res.rc}:\n{res.err}", None
    outputs = {}
    for extra in run_envs:
        label = f"{target} {' '.join(f'{k}={v}' for k, v in extra.items())}".strip()
        try:
            run = subprocess.run([str(exe)], cwd=str(work), capture_output=True, text=True, timeout=120,
                                 env=dict(os.environ, **extra))
        except subprocess.TimeoutExpired:
            return f"HANG: the {label} program ran for more than 120 s", None
        if run.returncode != 0:
            return f"{label} program exited {run.returncode}:\n{run.stdout[-3000:]}{run.stderr[-3000:]}", None
        outputs[label] = run.stdout
    return None, outputs


def _compare(stdout: str, programs, target: str):
    """Each function's printed result against the model; the mismatches, with their programs."""
    got = dict(line.split(":", 1) for line in stdout.splitlines() if ":" in line)
    problems = []
    for prog in programs:
        want = " ".join(map(str, prog.expected))
        have = got.get(prog.name, "<missing>").strip()
        if have != want:
            diff = next((i for i, (a, b) in enumerate(zip(have.split(), want.split())) if a != b), None)
            problems.append(f"=== {target}: {prog.name} (seed {prog.seed}) differs from the model"
                            f"{'' if diff is None else f' first at element {diff}'}\n"
                            f"reproduce: python3 tests/frontend/fuzz/generator.py --runnable {prog.seed}\n"
                            f"want: {want[:400]}\nhave: {have[:400]}\n--- function ---\n{prog.co_text}")
        if prog.bad_call and got.get(prog.bad_call, "<missing>").strip() != "runtime_error":
            problems.append(f"=== {target}: {prog.name} (seed {prog.seed}), called with a shape its tiling "
                            f"does not divide, printed {got.get(prog.bad_call, '<missing>').strip()!r}, "
                            f"not 'runtime_error' (croktile::runtime_error)\n--- function ---\n{prog.co_text}")
    return problems


@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")
def test_runnable_programs_match_the_model(tmp_path):
    programs = [generator.runnable_function(seed) for seed in range(RUNNABLE)]
    src = tmp_path / "generated.co.cpp"
    src.write_text(generator.runnable_file(programs))
    builds = {"cpu": ([], [{}])}   # target: (flags, environments to run in)
    if shutil.which("cc"):
        builds["factor"] = (["-kt"], [{}, SLOW_DMA])
    opencl_problem = _opencl_available()
    if not opencl_problem:
        builds["opencl"] = ([], [{}])
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(builds)) as pool:
        futures = {}
        for target, (flags, envs) in builds.items():
            work = tmp_path / target
            work.mkdir()
            futures[target] = pool.submit(_build_and_run, src, target, flags, work, envs)
        results = {t: f.result() for t, f in futures.items()}
    problems = []
    for target, (problem, outputs) in results.items():
        if problem is not None:
            problems.append(f"=== {target}: {problem}")
            continue
        for label, stdout in outputs.items():
            problems += _compare(stdout, programs, label)
    assert not problems, (f"source: {src}\n" + "\n\n".join(problems)
                          + ("" if opencl_problem == "" else f"\n(opencl not run: {opencl_problem})"))
    if opencl_problem:
        print(f"opencl not run: {opencl_problem}")
