"""Every program on the documentation pages compiles, and prints what the page says.

A ```` ```cpp ```` block holding a ``__co__`` function is compiled by croktilec; one with
a ``main`` is built and run on the cpu target and its standard output must equal the
``{.text .output}`` block after it; a ``{.cpp .fails}`` program must be rejected with
exactly the diagnostics shown. Fragments are marked ``{.cpp .fragment}`` and skipped
(``codeblocks.py`` has the rules). So the pages cannot drift from the compiler.
"""
from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Dict, Iterator, List

import pytest

from .codeblocks import Block, blocks, problems
from helpers.croktilec import run_croktilec, run_program

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
ALL: List[Block] = [b for page in PAGES for b in blocks(page, REPO)]
PROGRAMS = [b for b in ALL if b.is_program and b.declares_co]


def test_pages_mark_every_block():
    """A block the tests cannot classify is a program that escapes them."""
    assert PAGES, "no documentation pages found"
    wrong = [msg for page in PAGES for msg in problems(blocks(page, REPO))]
    assert not wrong, "\n".join(wrong)


def test_every_guide_page_runs_a_program():
    """Each page of the language guide shows at least one whole program and its output."""
    guide = sorted((DOCS / "language").glob("*.md"))
    without = [p.name for p in guide
               if not any(b.is_program and b.has_main and not b.fails for b in blocks(p, REPO))]
    assert not without, f"language guide pages without a runnable program: {without}"


def check(block: Block, work: Path) -> None:
    """Compile (and run) one program in its own folder; an AssertionError says what differs."""
    work.mkdir(parents=True)
    src = work / block.file_name
    src.write_text(block.text, encoding="utf-8")
    if block.fails:
        res = run_croktilec("-fsyntax-only", src.name, cwd=work)
        assert res.rc == 1, f"{block.where}: expected errors, got exit {res.rc}:\n{res.err}"
        assert res.err == block.output.text, f"{block.where}: the diagnostics differ from the page's"
        return
    if not block.has_main:
        res = run_croktilec("-fsyntax-only", src.name, cwd=work)
        assert res.rc == 0, f"{block.where} does not compile:\n{res.err}"
        return
    exe = work / "prog"
    res = run_croktilec("-O0", src.name, "-o", exe.name, cwd=work)
    assert res.rc == 0, f"{block.where} does not build:\n{res.out}{res.err}"
    run = run_program(exe)
    assert run.returncode == 0, f"{block.where} exited {run.returncode}:\n{run.stdout}{run.stderr}"
    assert run.stdout == block.output.text, f"{block.where}: the output differs from the page's"


@pytest.fixture(scope="module")
def checked(request, tmp_path_factory) -> Iterator[Dict[str, Future]]:
    """The programs this session runs, built on every core at once (each build is a few
    seconds of c++); each test then waits for its own."""
    selected = [item.callspec.params["block"] for item in request.session.items
                if getattr(item, "callspec", None) and isinstance(item.callspec.params.get("block"), Block)]
    root = tmp_path_factory.mktemp("docs-programs")
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        yield {b.where: pool.submit(check, b, root / f"p{i}") for i, b in enumerate(selected)}


@pytest.mark.parametrize("block", PROGRAMS, ids=[b.where for b in PROGRAMS])
def test_program(block: Block, checked: Dict[str, Future]):
    checked[block.where].result()
