"""Mutation (fuzz) test of the Croktile frontend.

A few valid seed programs (``seeds/*.co.cpp``) are mutated deterministically (token
deletion/duplication/swaps, character deletion, insertion of tokens from the
language's vocabulary, truncation, line duplication/swaps, numbers replaced by 0, -1
or huge values, binary operators replaced, a run of tokens repeated up to 600 times) and every mutant is run
through the frontend in-process (``run_frontend``, all stages up to the IR, i.e. what
``croktilec -fsyntax-only`` runs).  For every mutant we require:

* no exception other than ``FatalError`` escapes (anything else would be an
  internal compiler error, exit status 2, for a user);
* it finishes within ``PER_MUTANT_LIMIT_S`` (a hang is caught with a SIGALRM timer);
* every diagnostic is gcc-style: ``file:line:col: error: ...`` (line and column in
  range for the mutant) or ``croktilec: ...``, and nothing else on the streams
  claims to be an error.

Every ``CLI_EVERY``-th mutant is additionally compiled through ``cli.main`` with
``-fsyntax-only`` from a file, which must exit 0 or 1 (never 2).

A failure message contains the mutant's text, the path of a copy written under
``tmp_path``, and the traceback, so that the bug can be reproduced with
``python -m croktile_driver -fsyntax-only --debug FILE``.  A single mutant can be
regenerated with ``make_mutant(seed_text, seed_name, index)``.
"""
from __future__ import annotations

import contextlib
import io
import os
import random
import re
import time
import traceback
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

from croktile_driver import cli
from croktile_driver.diagnostics import Diagnostics
from helpers.paths import SAMPLES

from .harness import InputTimeout, co_regions, parser_tables, run_in_process, time_limit, tokenize

SEED_DIR = Path(__file__).parent / "seeds"
SAMPLES_DIR = SAMPLES
# the shipped spec-1 sample, plus seeds written for constructs the samples lack and one
# program of tests/frontend/fuzz/generator.py
SEEDS = [SAMPLES_DIR / "ele_add.co.cpp"] + sorted(SEED_DIR.glob("*.co.cpp"))

# Total number of mutants over all seeds ("a few thousand"; keep it >= 2000).  With the
# parser tables loaded once (see the `shipped_tables` fixture) a mutant costs ~3-8 ms of
# CPU (the long repeated-token ones up to ~500 ms), so 4000 mutants take ~27 s of CPU on the
# 2-core machine, and about twice that while other work shares it.  Lower it if the file
# stops running well under 60 s.
TOTAL_MUTANTS = 4000
MUTANTS_PER_SEED = max(1, TOTAL_MUTANTS // max(1, len(SEEDS)))

# A mutant that takes longer than this is reported as a hang.
PER_MUTANT_LIMIT_S = 2.0

# Every CLI_EVERY-th mutant also goes through `cli.main(['-fsyntax-only', file])`.
CLI_EVERY = 20

# Stop collecting after this many distinct failures per seed (the report stays short),
# or, once something has failed, after SEED_BUDGET_S seconds on one seed (each hang
# costs PER_MUTANT_LIMIT_S, and a known hang can recur in many mutants).
MAX_FAILURES = 5
SEED_BUDGET_S = 10.0

# ---------------------------------------------------------------------------
# Vocabulary and tokenizer
# ---------------------------------------------------------------------------

KEYWORDS = ("parallel by with in where foreach if dma copy async wait call return local "
            "shared global mdspan ituple int bool s32 f32 _").split()
EXTRA_KEYWORDS = "__co__ __cok__ void auto float f16 u8 span chunkat data true false".split()
OPERATORS = ("=> <-> # | . , ; : ( ) [ ] { } < > = + - * / %").split() + [
    "<=", ">=", "==", "!=", "&&", "||", "!", "~", "^", "&", "?", "<<", ">>", "->", "::"]
IDENTIFIERS = ["p", "q", "x", "index", "lhs", "rhs", "output", "buffer", "f", "sp",
               "spn", "n_p", "kernel", "foo", "undeclared_name", "a" * 300]
HUGE_NUMBERS = ["4294967296", "9223372036854775808", "99999999999999999999999999999",
                "1" + "0" * 400]
INTEGERS = ["0", "1", "2", "7", "-1", "0x10", "017", "08", "0b101", "1u", "1.5", "1e9",
            "1e999"] + HUGE_NUMBERS
ODD_TOKENS = ['"', "'", "/*", "*/", "//", "\\", "#define N 4\n", "\n#if 0\n", "\n#endif\n",
              "\n#error boom\n", "__LINE__", "\t", "\n", "@", "$", "`", "\u00e9"]
VOCABULARY = KEYWORDS + EXTRA_KEYWORDS + OPERATORS + IDENTIFIERS + INTEGERS + ODD_TOKENS

_NUMBER_RE = re.compile(r"\b\d[\w.]*")


# ---------------------------------------------------------------------------
# Mutators: each takes (rng, text) and returns the mutated text
# ---------------------------------------------------------------------------

def _pick_token(rng: random.Random, text: str) -> Optional[Tuple[int, int]]:
    """A random token, inside a ``__co__`` function 85% of the time."""
    toks = tokenize(text)
    if not toks:
        return None
    regions = co_regions(text)
    if regions and rng.random() < 0.85:
        inside = [t for t in toks if any(a <= t[0] < b for a, b in regions)]
        if inside:
            return rng.choice(inside)
    return rng.choice(toks)


def m_delete_token(rng, text):
    t = _pick_token(rng, text)
    return text if t is None else text[:t[0]] + text[t[1]:]


def m_duplicate_token(rng, text):
    t = _pick_token(rng, text)
    return text if t is None else text[:t[1]] + " " + text[t[0]:t[1]] + text[t[1]:]


def m_swap_tokens(rng, text):
    a, b = _pick_token(rng, text), _pick_token(rng, text)
    if a is None or b is None or a == b:
        return text
    if rng.random() < 0.5:  # swap with the next token instead, a common typo
        toks = tokenize(text)
        i = toks.index(a)
        if i + 1 < len(toks):
            b = toks[i + 1]
    a, b = sorted([a, b])
    if a[1] > b[0]:
        return text
    return text[:a[0]] + text[b[0]:b[1]] + text[a[1]:b[0]] + text[a[0]:a[1]] + text[b[1]:]


def m_delete_char(rng, text):
    regions = co_regions(text)
    if regions and rng.random() < 0.85:
        lo, hi = rng.choice(regions)
    else:
        lo, hi = 0, len(text)
    if hi <= lo:
        return text
    i = rng.randrange(lo, hi)
    return text[:i] + text[i + 1:]


def m_insert_token(rng, text):
    t = _pick_token(rng, text)
    pos = 0 if t is None else rng.choice(t)
    tok = rng.choice(VOCABULARY)
    return text[:pos] + " " + tok + " " + text[pos:]


def m_truncate(rng, text):
    regions = co_regions(text)
    if regions and rng.random() < 0.85:
        lo, hi = rng.choice(regions)
    else:
        lo, hi = 0, len(text)
    return text[:rng.randrange(lo, max(lo + 1, hi))]


def _lines_and_pick(rng, text):
    lines = text.split("\n")
    regions = co_regions(text)
    if regions and rng.random() < 0.85:
        lo, hi = rng.choice(regions)
        first, last = text.count("\n", 0, lo), text.count("\n", 0, hi)
        return lines, rng.randint(first, min(last, len(lines) - 1))
    return lines, rng.randrange(len(lines))


def m_duplicate_line(rng, text):
    lines, i = _lines_and_pick(rng, text)
    lines.insert(i, lines[i])
    return "\n".join(lines)


def m_swap_lines(rng, text):
    lines, i = _lines_and_pick(rng, text)
    _, j = _lines_and_pick(rng, text)
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def m_replace_number(rng, text):
    nums = [m.span() for m in _NUMBER_RE.finditer(text)]
    regions = co_regions(text)
    inside = [n for n in nums if any(a <= n[0] < b for a, b in regions)]
    pool = inside if inside and rng.random() < 0.85 else nums
    if not pool:
        return text
    a, b = rng.choice(pool)
    return text[:a] + rng.choice(["0", "-1", "0", "-1", "09"] + HUGE_NUMBERS) + text[b:]


_BINARY_OPS = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", ">", "<=", ">=", "==",
               "!=", "&&", "||"]


def m_replace_operator(rng, text):
    """Replaces a binary operator inside a ``__co__`` function by another one."""
    regions = co_regions(text)
    ops = [t for t in tokenize(text) if text[t[0]:t[1]] in _BINARY_OPS
           and any(a <= t[0] < b for a, b in regions)]
    if not ops:
        return m_insert_token(rng, text)
    a, b = rng.choice(ops)
    return text[:a] + rng.choice(_BINARY_OPS) + text[b:]


def m_repeat_tokens(rng, text):
    """Repeats a run of 1-4 tokens many times: long operator chains, deep nesting."""
    t = _pick_token(rng, text)
    if t is None:
        return text
    toks = tokenize(text)
    i = toks.index(t)
    j = min(len(toks) - 1, i + rng.randrange(4))
    chunk = text[toks[i][0]:toks[j][1]]
    return text[:toks[j][1]] + (" " + chunk) * rng.choice([20, 200, 600]) + text[toks[j][1]:]


MUTATORS = [m_delete_token, m_duplicate_token, m_swap_tokens, m_delete_char, m_insert_token,
            m_truncate, m_duplicate_line, m_replace_number, m_swap_lines, m_repeat_tokens,
            m_replace_operator]


def make_mutant(seed_text: str, seed_name: str, index: int) -> Tuple[str, List[str]]:
    """Mutant number ``index`` of a seed; deterministic, and independent of the others."""
    rng = random.Random(f"{seed_name}:{index}")
    text, applied = seed_text, []
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        mutator = rng.choice(MUTATORS)
        if mutator is m_truncate and applied:
            continue  # truncating after other edits mostly hides them
        if mutator is m_repeat_tokens and mutator.__name__ in applied:
            continue  # repeats of repeats: inputs (and diagnostics) too big to be useful
        text = mutator(rng, text)
        applied.append(mutator.__name__)
    return text, applied


# ---------------------------------------------------------------------------
# Running one mutant
# ---------------------------------------------------------------------------

_GCC_HEAD = re.compile(r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+): (?P<kind>error|warning|note): \S")
_LINE_MARKER_RE = re.compile(r"^[ \t]*#[ \t]*(line\b|\d)", re.M)
_DRIVER_HEAD = re.compile(r"^croktilec: (error|warning|note|fatal error): \S")


def check_diagnostics(diag: Diagnostics, output: str, mutant: str, filename: str) -> List[str]:
    """Problems with the printed diagnostics (empty when they are all gcc-style)."""
    problems = []
    src_lines = mutant.splitlines()
    src_line_set = set(src_lines)
    # `#line N "file"` / `# N` markers legitimately move positions elsewhere
    remapped = _LINE_MARKER_RE.search(mutant) is not None
    heads = set()
    for message in diag.messages:
        head = message.split("\n", 1)[0]
        heads.add(head)
        m = _GCC_HEAD.match(head)
        if m and not remapped:
            line, col = int(m.group("line")), int(m.group("col"))
            if m.group("file") != filename:
                problems.append(f"diagnostic names another file: {head!r}")
            if not (1 <= line <= len(src_lines) + 1) or col < 1:
                problems.append(f"diagnostic position out of range "
                                f"({len(src_lines)} lines): {head!r}")
        elif not m and not _DRIVER_HEAD.match(head):
            problems.append(f"diagnostic is not gcc-style: {head!r}")
    for line in output.splitlines():
        if ": error: " not in line and ": warning: " not in line and "error:" not in line[:40]:
            continue
        if _GCC_HEAD.match(line) or _DRIVER_HEAD.match(line) or line in heads:
            continue
        if line in src_line_set:
            continue  # the echoed source line under a diagnostic
        problems.append(f"line on the diagnostic streams is not gcc-style: {line!r}")
    if diag.errors and not any(": error: " in h or h.startswith("croktilec: error: ")
                               for h in heads):
        problems.append("diag.errors > 0 but no error message was printed")
    return problems


def run_mutant(text: str, filename: str) -> Tuple[Optional[str], float]:
    """Runs the frontend; returns (problem or None, seconds)."""
    problem, diag, printed, elapsed = run_in_process(text, filename, PER_MUTANT_LIMIT_S)
    if problem is None:
        issues = check_diagnostics(diag, printed, text, filename)
        if issues:
            problem = "bad diagnostics:\n  " + "\n  ".join(issues) + "\n--- printed ---\n" + printed
    return problem, elapsed


_FRAME_RE = re.compile(r'^\s*File "([^"]+)", line (\d+)', re.M)


def failure_key(problem: str) -> str:
    """Exception type and innermost frame for a crash, else the first line."""
    if problem.startswith("HANG"):
        return "HANG"  # where the timer stops a hang varies; one report is enough
    if problem.startswith("internal"):
        frames = [f for f in _FRAME_RE.findall(problem) if not f[0].endswith("test_mutations.py")]
        exc = problem.strip().splitlines()[-1].split(":", 1)[0]
        where = f"{os.path.basename(frames[-1][0])}:{frames[-1][1]}" if frames else "?"
        return f"{problem.split(':', 1)[0]} {exc} at {where}"
    lines = problem.splitlines()
    first = lines[1].strip() if lines[0] == "bad diagnostics:" and len(lines) > 1 else lines[0]
    return re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "_", first)[:120]


def run_mutant_cli(path: Path) -> Optional[str]:
    err, out = io.StringIO(), io.StringIO()
    with time_limit(PER_MUTANT_LIMIT_S * 2), contextlib.redirect_stderr(err), \
            contextlib.redirect_stdout(out):
        try:
            rc = cli.main(["-fsyntax-only", "--debug", str(path)])
        except InputTimeout:
            return f"HANG in cli.main:\n{traceback.format_exc()}"
    if rc not in (0, 1):
        return f"cli.main exited {rc}:\n{err.getvalue()}"
    if rc == 1 and not err.getvalue().strip():
        return "cli.main exited 1 without printing a diagnostic"
    return None


# ---------------------------------------------------------------------------
# Fixtures and tests
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def shipped_tables(tmp_path_factory):
    """Parser tables that match the grammar, loaded once (see ``harness.parser_tables``)."""
    with parser_tables(tmp_path_factory.mktemp("parsetab")):
        yield


@pytest.mark.parametrize("seed", SEEDS, ids=lambda p: p.name)
def test_seed_is_valid(seed):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = cli.main(["-fsyntax-only", str(seed)])
    assert rc == 0, f"seed {seed} is rejected:\n{err.getvalue()}"


def test_mutants_are_deterministic():
    text = SEEDS[0].read_text()
    first = [make_mutant(text, SEEDS[0].name, i) for i in range(50)]
    again = [make_mutant(text, SEEDS[0].name, i) for i in range(50)]
    assert first == again
    assert sum(m[0] != text for m in first) >= 40, "mutators should change the text"


def test_enough_mutants():
    assert len(SEEDS) >= 3
    assert MUTANTS_PER_SEED * len(SEEDS) >= 2000


# Hand-written inputs in the same spirit, each found while fuzzing (by these mutators or
# by hand).  Deliberately none that makes the frontend allocate gigabytes (e.g.
# `1 << 99999999999`): a C-level allocation cannot be interrupted by the timer.
EDGE_CASES = {
    "octal_with_9": "__co__ void f() {\n  a : [09];\n}\n",
    "non_ascii_identifier_in_host_code": "int caf\u00e9 = 1;\n",
    "negative_shift": "__co__ void f() {\n  x : [1 << -1];\n}\n",
    "negative_right_shift": "__co__ void f() {\n  x : [8 >> -1];\n}\n",
    "shift_by_2_pow_63": "__co__ void f() {\n  x : [1 << 9223372036854775808];\n}\n",
    "sum_of_1000_terms": "__co__ void f() {\n  int a = " + "+".join(["1"] * 1000) + ";\n}\n",
    "product_of_1000_terms": "__co__ void f() {\n  x : [" + "*".join(["2"] * 1000) + "];\n}\n",
    "400_nested_parallel": "__co__ void f() {\n" + "parallel p by 2 {\n" * 400 + "}\n" * 400 + "}\n",
    "3000_nested_parens": "__co__ void f() {\n  x : [" + "(" * 3000 + "1" + ")" * 3000 + "];\n}\n",
    "600_chained_members": ("__device__ void k(float* p) {}\n__co__ void f(f32 [4] a) {\n"
                            "  parallel p by 1 {\n    call k(a" + ".data" * 600 + ");\n  }\n}\n"),
    "mdspan_rank_10_pow_8": "__co__ void f(f32 mdspan<100000000> d) {}\n",
    "mdspan_rank_huge": "__co__ void f(f32 mdspan<" + "9" * 40 + "> d) {}\n",
    "parallel_by_huge": ("__device__ void k(int n) {}\n__co__ void f() {\n  parallel p by 1"
                         + "0" * 400 + " {\n    call k(#p);\n  }\n}\n"),
    "unterminated_comment_in_co": "__co__ void f() {\n  /* x : [1];\n}\n",
    "unterminated_string_in_host": 'const char *s = "abc;\n__co__ void f() {}\n',
}


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_edge_case(name, shipped_tables, tmp_path):
    text = EDGE_CASES[name]
    path = tmp_path / f"{name}.co.cpp"
    path.write_text(text)
    problem, _ = run_mutant(text, str(path))
    assert problem is None, (f"{name}: saved as {path}\nreproduce: python -m croktile_driver "
                             f"-fsyntax-only --debug {path}\n{problem}\n--- input ---\n{text[:2000]}")


@pytest.mark.parametrize("seed", SEEDS, ids=lambda p: p.name)
def test_frontend_survives_mutants(seed, shipped_tables, tmp_path):
    seed_text = seed.read_text()
    failures, seen = [], set()
    slowest = (0.0, -1)
    started = time.perf_counter()
    done = 0
    for i in range(MUTANTS_PER_SEED):
        if failures and time.perf_counter() - started > SEED_BUDGET_S:
            break
        done += 1
        mutant, applied = make_mutant(seed_text, seed.name, i)
        filename = f"mutant_{seed.name.split('.')[0]}_{i}.co.cpp"
        path = tmp_path / filename
        problem, elapsed = run_mutant(mutant, str(path))
        slowest = max(slowest, (elapsed, i))
        if problem is None and i % CLI_EVERY == 0:
            path.write_text(mutant)
            problem = run_mutant_cli(path)
        if problem is None:
            continue
        key = failure_key(problem)  # one report per distinct failure
        if key in seen:
            continue
        seen.add(key)
        path.write_text(mutant)
        failures.append(
            f"=== mutant #{i} of {seed.name} ({' + '.join(applied)}), saved as {path}\n"
            f"reproduce: python -m croktile_driver -fsyntax-only --debug {path}\n"
            f"{problem}\n--- mutant text ---\n{mutant}\n--- end of mutant ---")
        if len(failures) >= MAX_FAILURES:
            break
    print(f"{seed.name}: {done} of {MUTANTS_PER_SEED} mutants in "
          f"{time.perf_counter() - started:.1f} s, slowest #{slowest[1]} {slowest[0] * 1000:.1f} ms")
    assert not failures, f"{len(failures)} distinct failure(s):\n\n" + "\n\n".join(failures)
