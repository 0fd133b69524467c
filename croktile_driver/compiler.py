"""The compiler's stages, in the order they run on one ``.co.cpp``.

1. **frontend** (``frontend/``): preprocess, split the C++ text from the ``__co__``
   functions, parse them, check them and lower them to the IR (``ir/``); the checks
   run the planning passes the language needs (``analysis/``: fills, bounds, shared
   placement);
2. **unsupported**: constructs the frontend accepts but no target generates yet are
   errors at their lines;
3. **target rules** (``targets/<t>/``, ``ToolChain.check``): what one target needs of a
   checked program (cuda's threads per block, tensor-core forms per architecture);
4. **instances** (``analysis/instances.py``): each buffer's instances, which the
   generators read beside the checked IR;
5. **generation** (``ToolChain.generate``, on ``codegen/``): the target's sources.

The driver (``driver/jobs.py``) reads the input, calls ``compile_source`` and writes and
compiles what it returns; ``-fsyntax-only``, ``-E``, ``--dump-*`` and ``--visualize``
stop after stage 3 (``check_source``).
"""
from __future__ import annotations

import sys

TYPE_CHECKING = False   # the names annotations use, without importing typing at start-up
if TYPE_CHECKING:
    from typing import Dict, Optional

    from .diagnostics import Diagnostics
    from .driver.toolchain import ToolChain
    from .frontend.pipeline import TranslationUnit


def check_source(text: str, filename: str, diag: Diagnostics, toolchain: Optional[ToolChain],
                 options: dict, stop_after: str = "ir") -> TranslationUnit:
    """Stages 1 and 3: the frontend (up to ``stop_after``), then the named target's rules."""
    from .frontend.pipeline import run_frontend
    tu = run_frontend(text, filename, diag, stop_after=stop_after, **options)
    if toolchain is not None and tu.module is not None and not diag.errors:
        toolchain.check(tu.module, diag)
        if stop_after == "ir" and not diag.errors and toolchain.rules_in_generation:
            _generation_rules(tu, diag, toolchain)
    return tu


def _generation_rules(tu: TranslationUnit, diag: Diagnostics, toolchain: ToolChain) -> None:
    """The target rules that only its code generator can judge (how the instances of a
    level map onto threads, for the barriers `inthreads` needs on cuda): the generator
    runs and its sources are dropped, so that `-fsyntax-only` rejects what `-S` would."""
    from .analysis import instances
    checked = tu.module
    tu.module = instances.with_instances(checked)
    try:
        toolchain.generate(tu, diag)
    finally:
        tu.module = checked


class Compiled:
    """What ``compile_source`` gives the driver: the generated files and the checked functions
    (whose signatures go into the generated header)."""

    def __init__(self, files: Dict[str, str], functions: list):
        self.files = files
        self.functions = functions


def compile_source(text: str, filename: str, diag: Diagnostics, toolchain: ToolChain, options: dict,
            memory_report: bool = False) -> Optional[Compiled]:
    """Stages 1 to 5 for one input, or None after an error (diagnosed)."""
    from .frontend.pipeline import run_frontend
    tu = run_frontend(text, filename, diag, **options)
    for fn in tu.module.functions if tu.module is not None and not diag.errors else []:
        for loc, message in fn.unsupported:   # checked by the frontend, but no code for it yet
            diag.error(loc, message)
    if tu.module is not None and not diag.errors:
        toolchain.check(tu.module, diag)
    if diag.errors:
        return None
    from .analysis import instances
    checked = tu.module
    tu.module = instances.with_instances(checked)   # the code generators get the instances too
    if memory_report:
        for line in instances.report(tu.module):
            print(line, file=sys.stderr)
    from .analysis.memo import generating
    with generating():   # each function-wide analysis once, however many kernels ask
        files = toolchain.generate(tu, diag)
    tu.module = checked
    if diag.errors:
        return None
    if memory_report:
        from .analysis.fills import report
        for fn in tu.module.functions:
            print(report(fn), file=diag.stream)
    return Compiled(files, tu.module.functions)
