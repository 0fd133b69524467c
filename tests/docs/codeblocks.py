"""The fenced code blocks of the documentation pages, and what each one is.

A page says what each block is through its fence's info string, so that the tests know
which blocks to compile (docs/README.md states the rules for writers):

- ```` ```cpp ```` (or ```` ```{.cpp title="name.co.cpp"} ````) is a whole program: it
  holds a ``__co__`` function and is compiled; one with a ``main`` is also run on cpu;
- ```` ```{.cpp .fails title="name.co.cpp"} ```` is a program that must not compile;
- ```` ```{.text .output} ```` is what the program before it prints (for a ``.fails``
  program: croktilec's diagnostics);
- ```` ```{.cpp .fragment} ```` is a piece of tileflow code, not compiled;
- any other language (``console``, ``text``, ``yaml``, ``cmake``, ``python``) is no C++.

A fence without an info string, or tileflow code in a block not marked ``cpp``, is a
mistake of the page (:func:`problems` lists them), so that no program escapes the tests.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Set

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
ATTR = re.compile(r'\.(?P<cls>[\w+-]+)|(?P<key>\w+)="(?P<value>[^"]*)"')
CPP = {"cpp", "c++"}
# a line that declares a __co__ function (not the words "__co__ function" in prose)
CO_FUNCTION = re.compile(r"^[ \t]*__co__\s.*\(", re.M)


@dataclass
class Block:
    page: Path
    line: int               # of the opening fence, 1-based
    info: str
    lang: str
    classes: Set[str]
    attrs: Dict[str, str]
    text: str
    output: Optional["Block"] = field(default=None, repr=False)

    @property
    def where(self) -> str:
        return f"{self.page.as_posix()}:{self.line}"

    @property
    def is_cpp(self) -> bool:
        return self.lang in CPP

    @property
    def is_program(self) -> bool:
        return self.is_cpp and "fragment" not in self.classes

    @property
    def declares_co(self) -> bool:
        return CO_FUNCTION.search(self.text) is not None

    @property
    def fails(self) -> bool:
        return "fails" in self.classes

    @property
    def has_main(self) -> bool:
        return re.search(r"\bint\s+main\s*\(", self.text) is not None

    @property
    def file_name(self) -> str:
        """The name the page gives the program (diagnostics quote it), else one made
        from the page and line."""
        if "title" in self.attrs:
            return self.attrs["title"]
        return f"{self.page.stem}_{self.line}.co.cpp"


def parse_info(info: str):
    """(language, classes, attributes) of a fence's info string: ``cpp`` or
    ``{.cpp .fails title="x.co.cpp"}`` (the first class is the language)."""
    info = info.strip()
    if not (info.startswith("{") and info.endswith("}")):
        return (info.split()[0] if info else ""), set(), {}
    classes: List[str] = []
    attrs: Dict[str, str] = {}
    for m in ATTR.finditer(info[1:-1]):
        if m.group("cls"):
            classes.append(m.group("cls"))
        else:
            attrs[m.group("key")] = m.group("value")
    return (classes[0] if classes else ""), set(classes[1:]), attrs


def blocks(page: Path, root: Path) -> List[Block]:
    """The fenced blocks of one page, in order; an output block is attached to the
    program before it."""
    found: List[Block] = []
    lines = page.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m.group("indent"), m.group("fence"), m.group("info")
        body: List[str] = []
        j = i + 1
        closing = re.compile(re.escape(fence[0]) + "{%d,}" % len(fence))
        while j < len(lines) and not closing.fullmatch(lines[j].strip()):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        lang, classes, attrs = parse_info(info)
        found.append(Block(page.relative_to(root), i + 1, info.strip(), lang, classes, attrs,
                           "\n".join(body) + "\n"))
        i = j + 1
    last_program: Optional[Block] = None
    for b in found:
        if b.is_program:
            last_program = b
        elif "output" in b.classes and last_program is not None and last_program.output is None:
            last_program.output = b
    return found


def problems(page_blocks: List[Block]) -> List[str]:
    """What a page gets wrong about its blocks (each a message with page and line)."""
    out: List[str] = []
    owned = {id(b.output) for b in page_blocks if b.is_program and b.output is not None}
    for b in page_blocks:
        if not b.info:
            out.append(f"{b.where}: a fence without an info string: say what the block is "
                       "(cpp, {.cpp .fragment}, console, text, ...)")
        elif b.declares_co and not b.is_cpp:
            out.append(f"{b.where}: tileflow code in a '{b.lang}' block: mark it cpp or {{.cpp .fragment}}")
        elif b.is_program and not b.declares_co:
            out.append(f"{b.where}: a cpp block without a __co__ function is no program: "
                       "mark it {.cpp .fragment}")
        elif b.is_program and (b.has_main or b.fails) and b.output is None:
            out.append(f"{b.where}: a program with a main (or one that fails) needs a "
                       "{.text .output} block after it with what it prints")
        elif "output" in b.classes and id(b) not in owned:
            out.append(f"{b.where}: an output block that follows no program")
    return out
