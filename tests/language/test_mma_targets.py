"""The tensor-core language is one instruction set on every target (issue #36): the
portable targets compute what cuda's instructions compute, so a program that breaks a
rule of the language (element types no instruction takes, a fragment of the wrong kind,
a statement at a level of threads) gets the same diagnostics with -t cpu, factor, opencl
and cuda. Each error case of mma/ that names no target (test_corpus.py checks it on the
default, cpu) is checked here with each other target, against the same markers.
"""
from __future__ import annotations

import dataclasses

import pytest

from helpers import corpus

LANGUAGE_RULES = [c for c in corpus.all_cases()
                  if c.area == "mma" and c.is_error and not any(f.startswith("-t") for f in c.flags)]
OTHER_TARGETS = [t for t in corpus.TARGETS if t != "cpu"]


@pytest.mark.parametrize("target", OTHER_TARGETS)
@pytest.mark.parametrize("case", LANGUAGE_RULES, ids=lambda c: c.id)
def test_same_diagnostics(case: corpus.Case, target: str, croktilec):
    corpus.check_diagnostics(dataclasses.replace(case, flags=case.flags + ["-t", target]), croktilec)
