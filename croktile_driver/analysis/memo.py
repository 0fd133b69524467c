"""Function-wide analyses that each kernel asks for, worked out once per code generation.

A function of n launches has n kernels, and each kernel's emitter asks the same
questions of the whole function (its `inthreads` barriers, its host-level names, its
swizzled buffers, its fragments' uses): answered afresh each time, generating the
function cost O(n^2). Inside ``generating()`` (the code generators' run, when the IR no
longer changes) an answer is kept per function object; outside it (the checks, run while
passes may still rewrite the IR) every call computes. Callers must not change an answer.
"""
from __future__ import annotations

import functools
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Dict, Iterator, Optional, Tuple, TypeVar

T = TypeVar("T")

# (analysis, id of the function) -> (the function, kept alive so that its id stays its own; the answer)
_ANSWERS: ContextVar[Optional[Dict[Tuple[Callable, int], tuple]]] = ContextVar("croktile_answers", default=None)


@contextmanager
def generating() -> Iterator[None]:
    token = _ANSWERS.set({})
    try:
        yield
    finally:
        _ANSWERS.reset(token)


def per_function(analysis: Callable[..., T]) -> Callable[..., T]:
    """``analysis(fn)``, kept for ``fn`` inside ``generating()``."""
    @functools.wraps(analysis)
    def answer(fn) -> T:
        answers = _ANSWERS.get()
        if answers is None:
            return analysis(fn)
        key = (analysis, id(fn))
        if key not in answers:
            answers[key] = (fn, analysis(fn))
        return answers[key][1]
    return answer
