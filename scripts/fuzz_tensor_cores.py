#!/usr/bin/env python3
"""A mutation campaign on the tensor-core programs (issue #36): prints each distinct failure
with a minimized reproducer.

``COUNT`` mutants of the programs that use ``mma``/``tma`` (the corpus's, the gemm and
attention samples, tests/frontend/fuzz/seeds/tensor_cores/), made and checked by
tests/frontend/fuzz/tensor_cores.py: ``croktilec -fsyntax-only`` then ``-S``, for cpu and
cuda, in this process. The suite runs a few of them per program
(tests/frontend/fuzz/test_tensor_core_mutants.py); this runs many, from the repository's root:

    python scripts/fuzz_tensor_cores.py --seed 36 --count 2000              # summary
    python scripts/fuzz_tensor_cores.py --seed 36 --count 2000 --out DIR    # reproducers in DIR
    python scripts/fuzz_tensor_cores.py --seed 36 --replay samples/gemm/gemm.co.cpp:123

``--replay SEED_PROGRAM:INDEX`` writes one mutant (the one a failure report names) and
checks and minimizes it. Exit status 1 when something failed.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from frontend.fuzz import tensor_cores as tc  # noqa: E402  (after the path is set)
from frontend.fuzz.harness import parser_tables  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=36, help="the campaign's seed (default 36)")
    p.add_argument("--count", type=int, default=2000, help="how many mutants (default 2000)")
    p.add_argument("--limit", type=float, default=tc.LIMIT_S,
                   help=f"seconds of processor time a run may take before it counts as a hang (default {tc.LIMIT_S})")
    p.add_argument("--minimize-budget", type=float, default=60.0,
                   help="seconds spent minimizing each distinct failure (0: not minimized)")
    p.add_argument("--out", type=Path, help="write each failure's mutant and minimized reproducer here")
    p.add_argument("--replay", metavar="PROGRAM:INDEX", help="check and minimize one mutant")
    return p.parse_args(argv)


def report(n: int, found: "tc.Found", args, work: Path) -> str:
    f = found.failure
    lines = [f"=== [{n}] {f.key}",
             f"mutants: {found.count} (first #{found.index} of {found.seed.name}: {' + '.join(found.applied)}; "
             f"--replay {found.seed.name}:{found.index})",
             f"target: {f.target}; last frame: {f.last_frame or '-'}"]
    if args.minimize_budget > 0:
        started = time.monotonic()
        found.minimized = tc.minimize_failure(found.mutant, found.seed.arch, f, work, args.minimize_budget, args.limit)
        lines.append(f"minimized in {time.monotonic() - started:.1f} s:")
    text = found.minimized if found.minimized is not None else found.mutant
    where = work
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"mutant_{n}.co.cpp").write_text(found.mutant)
        where = args.out
    # run again on the reproducer's own file, for the command and the output to show
    again = tc.check(text, found.seed.arch, where, (f.target,), args.limit, f"repro_{n}.co.cpp") or f
    shown = tc.command(again)
    if not args.out:   # the temporary folder is gone when this is read: the input saved as repro_N.co.cpp
        shown = shown.replace(f"{work}/", "")
    lines += ["--- input ---", text.rstrip("\n"), "--- end ---", f"command: {shown}",
              "what happened:", *("  " + line for line in again.detail.strip().splitlines()[-12:])]
    return "\n".join(lines)


def replay(args, work: Path) -> int:
    program, _, index = args.replay.rpartition(":")
    seed = next((s for s in tc.seeds() if s.name == program), None)
    if seed is None:
        print(f"fuzz_tensor_cores: no seed program {program!r}", file=sys.stderr)
        return 2
    text, applied = tc.make_mutant(seed, args.seed, int(index))
    failure = tc.check(text, seed.arch, work, limit_s=args.limit)
    print(f"mutant #{index} of {program} ({' + '.join(applied)}):\n{text}")
    if failure is None:
        print("no failure")
        return 0
    found = tc.Found(failure, seed, int(index), applied, text, indices=[int(index)])
    print(report(1, found, args, work))
    return 1


def main(argv=None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="fuzz-tc-") as tmp, parser_tables(Path(tmp)):
        work = Path(tmp)
        if args.replay:
            return replay(args, work)
        programs = tc.seeds()
        started, cpu = time.monotonic(), time.process_time()

        def progress(done, failures):
            if done % 250 == 0:
                print(f"  {done} mutants, {failures} distinct failures, {time.monotonic() - started:.0f} s",
                      file=sys.stderr, flush=True)

        found = tc.run_campaign(args.seed, args.count, work, programs, args.limit, progress)
        print(f"{args.count} mutants of {len(programs)} programs (seed {args.seed}) in "
              f"{time.monotonic() - started:.1f} s ({time.process_time() - cpu:.1f} s of processor time): "
              f"{sum(f.count for f in found.values())} failed, {len(found)} distinct failures")
        for n, item in enumerate(found.values(), 1):
            print()
            print(report(n, item, args, work), flush=True)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
