"""Running many inputs through the frontend in-process: parser tables loaded once, a hang
limit per input, and every failure reported with what reproduces it.

Shared by tests/frontend/fuzz/test_generated.py, test_mutations.py and tensor_cores.py (which
also share the tokenizer the mutators edit programs with).
"""
from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import signal
import sys
import threading
import time
import traceback
from typing import List, Optional, Tuple

from croktile_driver.diagnostics import Diagnostics, FatalError
from croktile_driver.frontend import parser as co_parser
from croktile_driver.frontend.pipeline import run_frontend


class InputTimeout(BaseException):
    """Raised by the SIGALRM handler; a BaseException so `except Exception` cannot eat it."""


# the timers of time_limit: wall-clock time, or the processor time of this process (which a
# machine busy with other work does not stretch)
_CLOCKS = {"wall": ("ITIMER_REAL", "SIGALRM"), "cpu": ("ITIMER_PROF", "SIGPROF")}


@contextlib.contextmanager
def time_limit(seconds: float, clock: str = "wall"):
    """Interrupts the body after ``seconds`` of ``clock`` ("wall" or "cpu"; the two nest) by
    raising ``InputTimeout`` (main thread only; elsewhere the caller's own check of the time
    taken still catches a slow input)."""
    timer_name, signal_name = _CLOCKS[clock]
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return
    timer, signum = getattr(signal, timer_name), getattr(signal, signal_name)

    def on_alarm(signum, frame):
        raise InputTimeout(f"no result after {seconds} s{' of processor time' if clock == 'cpu' else ''}")

    old = signal.signal(signum, on_alarm)
    signal.setitimer(timer, seconds)
    try:
        yield
    finally:
        signal.setitimer(timer, 0)
        signal.signal(signum, old)


@contextlib.contextmanager
def parser_tables(tmp_dir):
    """Parser tables that match the grammar, loaded once for the whole test module.

    In a source checkout ``croktile_driver/frontend/_parsetab.py`` is missing or stale
    when the grammar changed since it was written (it is generated at wheel-build time);
    then every ``CroktileParser`` would rebuild the LALR tables (~50-60 ms) and a few
    thousand inputs would take minutes. The tables are then generated into ``tmp_dir``
    (never into the package) and registered under the module name the parser imports.
    """
    name = co_parser.TABLE_MODULE
    if co_parser.tables_are_current():
        yield
        return
    saved = sys.modules.get(name)
    co_parser.write_tables(str(tmp_dir))
    spec = importlib.util.spec_from_file_location(name, tmp_dir / "_parsetab.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    try:
        yield
    finally:
        if saved is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = saved


def run_in_process(text: str, filename: str, limit_s: float) -> Tuple[Optional[str], Diagnostics, str, float]:
    """Runs every frontend stage on ``text``.

    Returns (problem or None, the diagnostics, everything printed, seconds). A problem is
    an exception other than ``FatalError`` (an internal compiler error for a user), a
    hang past ``limit_s`` or a run slower than it."""
    diag = Diagnostics(stream=io.StringIO())
    stray = io.StringIO()  # anything printed past `Diagnostics` lands here
    start = time.perf_counter()
    problem = None
    try:
        with time_limit(limit_s), contextlib.redirect_stderr(stray), contextlib.redirect_stdout(stray):
            try:
                run_frontend(text, filename, diag)
            except FatalError:
                pass
    except InputTimeout:
        problem = f"HANG: no result after {limit_s} s; stack when stopped:\n" + traceback.format_exc()
    except RecursionError:
        problem = "internal compiler error (RecursionError):\n" + traceback.format_exc(limit=-15)
    except Exception:  # noqa: BLE001 -- exactly what these tests look for
        problem = "internal compiler error:\n" + traceback.format_exc()
    elapsed = time.perf_counter() - start
    if problem is None and elapsed > limit_s:
        problem = f"too slow: {elapsed:.2f} s > {limit_s} s"
    return problem, diag, diag.stream.getvalue() + stray.getvalue(), elapsed


# ---------------------------------------------------------------------------
# Tokens, for the mutators
# ---------------------------------------------------------------------------

_TOKEN_RE = re.compile(r"""
    //[^\n]* | /\*.*?\*/                      # comments
  | "(?:[^"\\\n]|\\.)*" | '(?:[^'\\\n]|\\.)*'  # string / char literals
  | [A-Za-z_]\w*                               # identifiers, keywords
  | \d[\w.]*                                   # numbers
  | <-> | => | -> | :: | <<= | >>= | << | >> | <= | >= | == | != | && | \|\| | \+\+ | --
  | \S                                         # any other single character
""", re.X | re.S)


def tokenize(text: str) -> List[Tuple[int, int]]:
    """(start, end) spans of the tokens of ``text`` (C-ish, good enough to mutate)."""
    return [m.span() for m in _TOKEN_RE.finditer(text)]


def co_regions(text: str) -> List[Tuple[int, int]]:
    """Character ranges of the ``__co__`` functions (from the keyword to the closing brace)."""
    regions = []
    for m in re.finditer(r"__co__", text):
        depth, i = 0, text.find("{", m.start())
        if i < 0:
            continue
        while i < len(text):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        regions.append((m.start(), i + 1))
    return regions
