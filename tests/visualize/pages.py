"""Reading the pages back: the elements of an HTML page (attributes and text), and the
pages of a sample made by ``croktilec --visualize``."""
from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Dict, List, Optional

from croktile_driver.cli import main

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
VOID = {"input", "br", "meta", "link", "img"}


@dataclass
class Node:
    tag: str
    attrs: Dict[str, str]
    parent: Optional["Node"]
    children: List["Node"] = field(default_factory=list)
    text: str = ""

    def find_all(self, tag: str = None, cls: str = None, **attrs) -> List["Node"]:
        out, stack = [], list(reversed(self.children))
        while stack:
            n = stack.pop()
            if (tag is None or n.tag == tag) and (cls is None or cls in n.attrs.get("class", "").split()) \
                    and all(n.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items()):
                out.append(n)
            stack.extend(reversed(n.children))
        return out

    def find(self, tag: str = None, cls: str = None, **attrs) -> "Node":
        found = self.find_all(tag, cls, **attrs)
        assert found, (tag, cls, attrs)
        return found[0]

    def all_text(self) -> str:
        return self.text + "".join(c.all_text() for c in self.children)

    def rect(self) -> tuple:
        return tuple(float(self.attrs[k]) for k in ("x", "y", "width", "height"))


class _Tree(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs}, self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, {k: v or "" for k, v in attrs}, self.cur))

    def handle_endtag(self, tag):
        node = self.cur
        while node is not None and node.tag != tag:
            node = node.parent
        assert node is not None, f"</{tag}> closes nothing"
        self.cur = node.parent

    def handle_data(self, data):
        self.cur.children.append(Node("#text", {}, self.cur, text=data))


def parse(text: str) -> Node:
    tree = _Tree()
    tree.feed(text)
    tree.close()
    assert tree.cur is tree.root, f"<{tree.cur.tag}> is never closed"
    return tree.root


def make_pages(sample: str, out: Path, *flags) -> Path:
    """The pages of a sample, made in this process (as the frontend tests run croktilec):
    a subprocess per page set would cost the suite a second each."""
    rc = main([f"--visualize={out}", *map(str, flags), str(SAMPLES / f"{sample}.co.cpp")])
    assert rc == 0, (sample, flags)
    return out


def make_pages_of(program: Path, out: Path, *flags) -> Path:
    """The pages of any program (a test's own, a corpus file), made in this process."""
    rc = main([f"--visualize={out}", *map(str, flags), str(program)])
    assert rc == 0, (program, flags)
    return out


def copy_card(page: Node, line: int) -> Node:
    """The card of the copy at ``line`` (its heading starts with L<line>)."""
    for card in page.find_all("article", cls="copy"):
        if card.find("span", cls="ln").all_text() == f"L{line}":
            return card
    raise AssertionError(f"no copy card for line {line}")


def selected(grid: Node) -> List[tuple]:
    return [r.rect() for r in grid.find("g", cls="sel").find_all("rect")]


def tile_rects(grid: Node) -> List[tuple]:
    return sorted(r.rect() for r in grid.find("g", cls="tiles").find_all("rect"))
