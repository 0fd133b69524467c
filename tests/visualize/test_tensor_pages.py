"""The tensor-core pictures of a page (issue #39): the first sizes pass the function's
asserts (no level at 0 instances), tma.copy and the mma statements have cards, the
swizzle of a shared tile is the runtime's, each fragment element's warp and lane are
the PTX ISA's, and a pipelined loop's stages follow its rotation. samples/gemm and
samples/attention as `-t cuda -arch=sm_90a` draws them; the warp-level (mma.sync)
layouts on the sm_80 corpus program."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from .pages import SAMPLES, make_pages, make_pages_of, parse

CORPUS = SAMPLES.parent / "tests" / "language" / "mma"
RUNTIME = SAMPLES.parent / "runtime"
SM90 = ("-t", "cuda", "-arch=sm_90a")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    root = tmp_path_factory.mktemp("tensor-pages")
    return {name: parse((make_pages(f"{name}/{name}", root / name, *SM90) / f"{name}.html").read_text())
            for name in ("gemm", "attention")}


def _sizes(doc) -> dict:
    return {i.attrs["data-var"]: int(i.attrs["value"]) for i in doc.find_all("input", type="number")}


def _counts(doc) -> list:
    """Every number a nesting box's count shows (× N · M instances in all, × N iterations)."""
    texts = [t.all_text() for t in doc.find("svg", cls="nesting").find_all("text", cls="count")]
    return [int(n) for t in texts for n in re.findall(r"\d+", t)]


def test_first_sizes_pass_the_asserts(pages):
    """attention asserts HQ % HKV == 0: the first sizes pass it."""
    # the GEMM takes any shape and asserts nothing: the defaults
    assert _sizes(pages["gemm"]) == {"lhs__dim0": 64, "lhs__dim1": 64, "rhs__dim0": 64, "rhs__dim1": 64}
    sizes = _sizes(pages["attention"])
    assert sizes["q__dim1"] % sizes["k__dim1"] == 0   # its query heads a multiple of the key/value heads
    for name, doc in pages.items():
        counts = _counts(doc)
        assert counts and 0 not in counts, (name, counts)
        assert "instances in all" in doc.find("svg", cls="nesting").all_text()


PROGRAM = """
__co__ auto scaled(s32 [M, N] a) {
  assert(%s, "sizes");
  s32 [M, N] out;
  parallel p by M / 32 : block {
    t = dma.copy a.chunkat(p, _) => shared;
    dma.copy t.data => out.chunkat(p, _);
  }
  return out;
}
int main() { return 0; }
"""


@pytest.mark.parametrize("condition, sizes", [
    ("N % 32 == 0 && M == 3 * N && M % 96 == 0", {"a__dim0": 96, "a__dim1": 32}),
    ("M % 7 == 0 && M % 7 == 1", {"a__dim0": 64, "a__dim1": 64}),    # none passes: the defaults
], ids=["related-sizes", "unsatisfiable"])
def test_first_sizes_of_a_program(tmp_path, condition, sizes):
    (tmp_path / "p.co.cpp").write_text(PROGRAM % condition)
    doc = parse((make_pages_of(tmp_path / "p.co.cpp", tmp_path / "pics") / "scaled.html").read_text())
    assert _sizes(doc) == sizes


def test_explicit_values_are_kept(tmp_path):
    out = make_pages("gemm/gemm", tmp_path / "pics", *SM90, "--visualize-values=M=2048")
    assert _sizes(parse((out / "gemm.html").read_text()))["lhs__dim0"] == 2048


def _card(doc, line, cls):
    for card in doc.find_all("article", cls=cls):
        if card.find("span", cls="ln").all_text() == f"L{line}":
            return card
    raise AssertionError(f"no {cls} card for line {line}")


def _line(text: str, sample: str = "gemm/gemm") -> int:
    """The line of the sample's statement that starts with ``text``."""
    lines = (SAMPLES / f"{sample}.co.cpp").read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.strip().startswith(text))


def test_tma_copies_are_named_as_written(pages):
    gemm = pages["gemm"]
    assert _card(gemm, _line("a = tma.copy.async"), "copy").find("p", cls="sub").all_text().startswith("tma.copy.async.swiz<128> ·")
    assert _card(gemm, _line("tma.copy cs => out"), "copy").find("p", cls="sub").all_text().startswith("tma.copy ·")
    assert "dma.copy" not in gemm.find("section", id="copies").all_text()
    # a swizzled copy links to the picture of its swizzle
    assert _card(gemm, _line("a = tma.copy.async"), "copy").find("a").attrs["href"] == "#swizzle-128"
    assert gemm.find("section", id="swizzle").find("article", id="swizzle-128")


def test_mma_statements_have_cards(pages):
    gemm = pages["gemm"]
    fill = _card(gemm, _line("mc = mma.fill"), "mma").find("p", cls="sub").all_text()
    assert fill == "mma.fill · every element of mc = 0.0"
    load = _card(gemm, _line("ma = mma.load"), "mma")
    assert load.find("p", cls="sub").all_text().startswith("mma.load.swiz<128> · the chunk of instance w=0, g=0")
    assert load.find("svg", cls="src") and "ma: A operand f16 [64, 16] (wgmma m64n256k16)" in load.all_text()
    assert "transposed" in _card(gemm, _line("mb = mma.load"), "mma").find("p", cls="sub").all_text()
    mul = _card(gemm, _line("mma.row.row mc"), "mma").find("p", cls="sub").all_text()
    assert mul == ("mma.row.row · c += a × b: 64 x 256 x 16: A f16 [64, 16] · B f16 [16, 256] · "
                   "accumulator f32 [64, 256] · 1 wgmma m64n256k16 instruction")
    store = _card(gemm, _line("mma.store mc"), "mma")
    assert store.find("svg", cls="dst") and "held by the 128 threads of a warp group" in store.all_text()
    links = {a.attrs["href"] for a in gemm.find("svg", cls="nesting").find_all("a")}
    assert {f"#{c.attrs['id']}" for c in gemm.find_all("article", cls="mma")} <= links
    # attention: a multiply with an operand converted in registers, B given as keys x columns
    attn = pages["attention"]
    assert "64 x 64 x 128: A f16 [64, 128] · B f16 [128, 64]" in _card(attn, _line("mma.row.col o0, p, vb", "attention/attention"), "mma").all_text()
    assert "8 wgmma m64n64k16 instructions" in _card(attn, _line("mma.row.col o0, p, vb", "attention/attention"), "mma").all_text()


def _swizzled(r: int, c: int, swizzle: int) -> int:
    """The chunk the runtime's header comment states: c ^ (r / (128 / SW) % (SW / 16))."""
    return c ^ (r // (128 // swizzle) % (swizzle // 16))


def test_the_swizzle_picture(pages):
    """Each 16-byte chunk of the stored rows is the row-major chunk c ^ (r % 8) (128B)."""
    for doc in pages.values():
        card = doc.find("section", id="swizzle").find("article", cls="swz")
        assert card.attrs["data-swizzle"] == "128"
        assert "chunk c of row r goes to chunk c ^ (r % 8)" in card.find("p", cls="sub").all_text()
        cells = card.find("svg", cls="stored").find_all("g", cls="chunk")
        assert len(cells) == 8 * 8
        for g in cells:
            r, at, chunk = (int(g.attrs[k]) for k in ("data-row", "data-at", "data-chunk"))
            assert _swizzled(r, chunk, 128) == at
    # a pipelined loop's buffers: the name of the step worked on, then its later stages
    assert "a, b, a (stage 1), b (stage 1), a (next), b (next): f16, rows of 128 bytes" in pages["gemm"].find(
        "section", id="swizzle").find("h3").all_text()


def test_the_swizzle_is_the_runtimes(tmp_path):
    """The picture's function against croktile::swizzle::offset, compiled: 32, 64, 128."""
    cxx = shutil.which("c++") or shutil.which("g++")
    if not cxx:
        pytest.skip("no C++ compiler")
    from croktile_driver.visualize.swizzle import offset
    (tmp_path / "s.cpp").write_text(
        '#include <cstdio>\n#include "croktile_swizzle.h"\n'
        "int main() { for (unsigned o = 0; o < 4096; o += 16) std::printf(\"%u %u %u\\n\", "
        "croktile::swizzle::offset<32>(o), croktile::swizzle::offset<64>(o), croktile::swizzle::offset<128>(o)); }\n")
    subprocess.run([cxx, "-std=c++17", "-I", str(RUNTIME), "s.cpp", "-o", "s"], cwd=tmp_path, check=True)
    lines = subprocess.run([str(tmp_path / "s")], capture_output=True, text=True, check=True).stdout.split("\n")
    for i, o in enumerate(range(0, 4096, 16)):
        assert [int(x) for x in lines[i].split()] == [offset(o, sw) for sw in (32, 64, 128)], o
        for sw in (32, 64, 128):   # with rows of SW bytes: the chunk rule of the caption
            r, c = divmod(o // 16, sw // 16)
            assert offset(o, sw) == r * sw + 16 * _swizzled(r, c, sw)


def _cells(card) -> dict:
    """(row, col) -> (warp, lane, element) from each cell's title."""
    out = {}
    for rect in card.find("svg", cls="owners").find_all("rect"):
        m = re.fullmatch(r"\((\d+), (\d+)\): warp (\d+), lane (\d+), its element (\d+)", rect.find("title").all_text())
        r, c, w, lane, n = map(int, m.groups())
        out[(r, c)] = (w, lane, n)
    return out


def _ptx_c(lane: int, i: int) -> tuple:
    """PTX ISA, "Matrix Fragments for mma.m16n8k16" (and wgmma's D per warp): c_i of a lane."""
    group, tig = lane >> 2, lane % 4
    return (group + 8 * (i // 2 % 2), 8 * (i // 4) + tig * 2 + (i & 1))


def test_wgmma_accumulator_ownership(pages):
    card = pages["gemm"].find("section", id="ownership").find("article", cls="frag", data_frag="mc")
    cells = _cells(card)
    assert len(cells) == 64 * 16
    for warp in range(4):
        for lane in range(32):
            for i in range(8):   # the registers of columns 0..15
                r, c = _ptx_c(lane, i)
                assert cells[(16 * warp + r, c)] == (warp, lane, i)
    assert "not held by threads: ma: A operand f16 [64, 16]" in pages["gemm"].find("section", id="ownership").all_text()
    attn = pages["attention"].find("section", id="ownership")
    assert [a.attrs["data-frag"] for a in attn.find_all("article", cls="frag")] == ["s", "p"]
    # p = mma.cvt s: wgmma's A in registers, per warp the PTX ISA's m16n8k16 A fragment
    p = _cells(attn.find("article", cls="frag", data_frag="p"))
    for warp in range(4):
        for lane in range(32):
            group, tig = lane >> 2, lane % 4
            for i in range(8):
                assert p[(16 * warp + group + 8 * (i // 2 % 2), tig * 2 + (i & 1) + 8 * (i // 4))] == (warp, lane, i)
    # every "who holds it" link lands on the card of its fragment (o0 shares s's layout)
    ids = {n.attrs["id"] for n in pages["attention"].find_all() if "id" in n.attrs}
    links = {a.attrs["href"][1:] for a in pages["attention"].find_all("a")
             if a.attrs.get("href", "").startswith("#frag-")}
    assert links == {"frag-s", "frag-o0", "frag-p"} and links <= ids


def test_warp_fragment_ownership(tmp_path):
    """mma.sync m16n8k16 (f16 -> f32): A's, B's and C's elements per lane as the PTX ISA
    lists them."""
    out = make_pages_of(CORPUS / "run_sm80.co.cpp", tmp_path / "pics", "-t", "cuda", "-arch=sm_80")
    section = parse((out / "mm_f16_f32.html").read_text()).find("section", id="ownership")
    frags = {a.attrs["data-frag"]: _cells(a) for a in section.find_all("article", cls="frag")}
    assert sorted(frags) == ["ma", "mb", "mc"]
    ptx_a, ptx_b, ptx_c = {}, {}, {}
    for lane in range(32):
        group, tig = lane >> 2, lane % 4
        for i in range(8):
            ptx_a[(group + 8 * (i // 2 % 2), tig * 2 + (i & 1) + 8 * (i // 4))] = lane
        for i in range(4):
            ptx_b[(tig * 2 + (i & 1) + 8 * (i // 2), group)] = lane
        for i in range(4):
            ptx_c[_ptx_c(lane, i)] = lane
    for name, ptx in (("ma", ptx_a), ("mb", ptx_b), ("mc", ptx_c)):
        assert {rc: cell[1] for rc, cell in frags[name].items()} == ptx, name
        assert all(cell[0] == 0 for cell in frags[name].values())


def _events(doc) -> list:
    return [li.all_text() for li in doc.find("section", id="stages").find("ol", cls="events").find_all("li")]


def test_gemm_stages(pages):
    """`pipelined(3)`: three buffers per operand: steps 0 and 1 before the loop, step k + 2
    into the free buffer at k, each wait on a completing the step in the buffer a has then."""
    card = pages["gemm"].find("section", id="stages").find("article", cls="stages")
    assert "drawn for K = 256, rhs.span(1) = 256 (4 iterations)" in card.all_text()
    events = [e for e in _events(pages["gemm"]) if " a" in e or e.startswith("before: a")]
    assert events == [
        "before: a = load of step 0 into buffer a",
        "before: a (stage 1) = load of step 1 into buffer a (stage 1)",
        "k=0: wait a completes step 0 in buffer a",
        "k=0: a (next) = load of step 2 into buffer a (next)",
        "k=1: wait a completes step 1 in buffer a (stage 1)",
        "k=1: a (next) = load of step 3 into buffer a",
        "k=2: wait a completes step 2 in buffer a (next)",
        "k=3: wait a completes step 3 in buffer a",
    ]
    svg = card.find("svg", cls="stages")
    bars = [(b.attrs["data-slot"], b.attrs["data-step"], b.attrs["class"]) for b in svg.find_all("g", cls="bar")]
    assert ("0", "3", "bar flight") in bars and ("2", "2", "bar ready") in bars


def test_attention_stages(pages):
    """`pipelined(2)`: the next step's tiles load at the start of each step, before its wait."""
    events = [e for e in _events(pages["attention"]) if " k0" in e]
    assert events[:4] == [
        "before: k0 = load of step 0 into buffer k0",
        "j=0: k0 (next) = load of step 1 into buffer k0 (next)",
        "j=0: wait k0 completes step 0 in buffer k0",
        "j=1: k0 (next) = load of step 2 into buffer k0",
    ]


def test_swapped_buffers_read_by_a_call(tmp_path):
    """samples/double_buffer: `swap(cur, nxt)`, the data read by a call (not an mma)."""
    doc = parse((make_pages("double_buffer", tmp_path / "pics") / "double_buffered.html").read_text())
    assert _events(doc)[:5] == [
        "before: cur = load of step 0 into buffer cur",
        "k=0: nxt = load of step 1 into buffer nxt",
        "k=0: wait cur completes step 0 in buffer cur",
        "k=1: nxt = load of step 2 into buffer cur",
        "k=1: wait cur completes step 1 in buffer nxt",
    ]
    card = doc.find("section", id="stages").find("article", cls="stages")
    assert "the first 4 of 8 iterations" in card.find("p", cls="sub").all_text()
    ready = [(b.attrs["data-slot"], b.attrs["data-step"]) for b in card.find_all("g", cls="ready")]
    assert ready == [("0", "0"), ("1", "1"), ("0", "2"), ("1", "3")]
    assert not doc.find_all("section", id="swizzle") and not doc.find_all("section", id="ownership")
