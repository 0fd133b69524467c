"""Mutants of the tensor-core programs through croktilec, in-process (issue #36).

``tensor_cores.py`` makes and checks the mutants: ``-fsyntax-only``, then ``-S`` when it
accepts, for cpu and for cuda (the program's ``-arch``); no internal error, no hang, no
``-S`` failure after an accepting ``-fsyntax-only``, every diagnostic located with its
source line and caret. Here each seed program and ``PER_PROGRAM`` of its mutants of
campaign ``CAMPAIGN`` run (about 10 s of processor time in all); a failure names the
mutant, which ``python scripts/fuzz_tensor_cores.py --seed 36 --replay PROGRAM:INDEX``
writes and minimizes again. The script runs the big campaigns (``--count 2000``).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from . import tensor_cores as tc
from .harness import parser_tables, tokenize

CAMPAIGN = 36
PER_PROGRAM = 8
SEEDS = tc.seeds()
# Seed programs whose first PER_PROGRAM mutants of CAMPAIGN meet a known compiler bug, that
# bug (the test fails strictly until it is fixed; then remove the entry).
KNOWN: dict = {}   # seed -> reason: a known bug its mutants hit (a strict xfail until fixed)


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    with parser_tables(tmp_path_factory.mktemp("parsetab")):
        yield


def _cases():
    for seed in SEEDS:
        marks = [pytest.mark.xfail(reason=KNOWN[seed.name], strict=True)] if seed.name in KNOWN else []
        yield pytest.param(seed, id=seed.name, marks=marks)


def test_seeds_cover_the_tensor_cores():
    names = {s.name for s in SEEDS}
    assert {"samples/gemm/gemm.co.cpp", "samples/attention/attention.co.cpp"} <= names
    assert sum(n.startswith("tests/language/mma/") for n in names) >= 20
    assert sum(n.startswith("tests/frontend/fuzz/seeds/tensor_cores/") for n in names) >= 3
    text = "\n".join(s.text for s in SEEDS)
    for form in ("mma.fill.f32", "mma.load.swiz<128>", "mma.row.row.sp", "mma.cvt.f16", "mma.row.max", "mma.exp",
                 "mma.mask.causal", "tma.copy.async", "tma.any", ": group-4", "f8_e4m3", "frag.s32", "inthreads"):
        assert form in text, form
    assert {s.arch for s in SEEDS} >= {"sm_80", "sm_90a"}


def test_token_kinds():
    text = "x = mma.load.swiz<128> a.chunkat(_, k); parallel p by 2 : group-4 { shared f16 [4] b; }"
    toks = tokenize(text)
    kinds = {text[a:b]: tc.kind_of(text, toks, i) for i, (a, b) in enumerate(toks)}
    assert (kinds["load"], kinds["swiz"], kinds["chunkat"]) == ("tcword", "tcword", "name")
    assert (kinds["128"], kinds["group"], kinds["f16"], kinds["shared"]) == ("number", "level", "elem", "storage")
    assert (kinds["parallel"], kinds["x"], kinds["=>" if "=>" in kinds else "="]) == ("keyword", "name", "punct")


def test_mutants_are_deterministic_and_differ():
    seed = next(s for s in SEEDS if s.name.endswith("wgmma_forms.co.cpp"))
    first = [tc.make_mutant(seed, CAMPAIGN, i) for i in range(60)]
    assert first == [tc.make_mutant(seed, CAMPAIGN, i) for i in range(60)]
    assert sum(text != seed.text for text, _ in first) >= 55
    assert first != [tc.make_mutant(seed, CAMPAIGN + 1, i) for i in range(60)]
    applied = {m for _, ms in first for m in ms}
    assert {"replace_same_kind", "insert_statement", "keep_one_function"} <= applied


def test_minimize_keeps_the_failure():
    text = "\n".join(f"line {i} filler filler" for i in range(40)) + "\nmma.cvt.f16 s; x\n"
    small = tc.minimize(text, lambda t: re.search(r"\bmma\s*\.\s*cvt\b", t) is not None, budget_s=10)
    assert small.strip() == "mma.cvt"


def test_judge():
    """What counts as a failure of one run (checked on made-up output)."""
    src = "__co__ void f() {\n  x;\n}\n"
    path = Path("in.co.cpp")
    argv = ["-fsyntax-only", "-t", "cpu", str(path)]
    located = "in.co.cpp:2:3: error: 'x' was not declared\n  x;\n  ^\n"
    assert tc.judge(1, "", located, src, path, argv, "cpu") is None
    assert tc.judge(0, "", "", src, path, argv, "cpu") is None
    crash = 'Traceback (most recent call last):\n  File "/a/croktile_driver/frontend/sema/mma.py", line 9, in _load\n' \
            "TypeError: bad\ncroktilec: internal compiler error: TypeError: bad at mma.py:9\n"
    failure = tc.judge(2, "", crash, src, path, argv, "cpu")
    assert failure.key == "internal error: TypeError in mma.py:9" and failure.last_frame == "mma.py:9 (_load)"
    assert "hang" in tc.judge(None, "", "", src, path, argv, "cpu").key
    assert "without file:line:col" in tc.judge(1, "", "croktilec: error: x is wrong\n", src, path, argv, "cpu").key
    assert "caret" in tc.judge(1, "", "in.co.cpp:2:3: error: no\n  x;\n", src, path, argv, "cpu").key
    assert "caret" in tc.judge(1, "", "in.co.cpp:2:1: error: no\n  x;\n  ^\n", src, path, argv, "cpu").key
    assert "without an error" in tc.judge(1, "", "", src, path, argv, "cpu").key


@pytest.mark.parametrize("seed", _cases())
def test_mutants(seed, tables, tmp_path):
    """The seed program and its first PER_PROGRAM mutants: no failure."""
    assert tc.check(seed.text, seed.arch, tmp_path) is None, "the seed program itself fails"
    failures = []
    for index in range(PER_PROGRAM):
        text, applied = tc.make_mutant(seed, CAMPAIGN, index)
        failure = tc.check(text, seed.arch, tmp_path)
        if failure is None:
            continue
        small = text if seed.name in KNOWN else tc.minimize_failure(text, seed.arch, failure, tmp_path, budget_s=10)
        failures.append(f"=== mutant #{index} ({' + '.join(applied)}): {failure.key}\n"
                        f"again: python scripts/fuzz_tensor_cores.py --seed {CAMPAIGN} --replay {seed.name}:{index}\n"
                        f"{tc.command(failure)}\n{failure.detail.strip()[-2000:]}\n"
                        f"--- minimized ---\n{small}--- end ---")
    assert not failures, "\n\n".join(failures)

