"""--visualize and --visualize-stmt as a user runs them: what the pages and pictures hold
for known programs (the chunks of each instance, the memory plan, masks, where
bindings), pages for programs with errors, and no page for what is not a program."""
from __future__ import annotations

import os
import re

import pytest
from helpers.croktilec import fails, ok, run_croktilec

from .pages import SAMPLES, copy_card, make_pages, parse, selected, tile_rects

BAD = """\
__co__ s32 [8] good(s32 [8] a) {
  s32 [8] out;
  parallel p by 2 {
    t = dma.copy a.chunkat(p) => local;
    dma.copy t => out.chunkat(p);
  }
  return out;
}

__co__ s32 [8] broken(s32 [8] a) {
  s32 [8] out;
  parallel p by 2 {
    t = dma.copy a.chunkat(p, 1) => local;
    dma.copy t => out.chunkat(p);
  }
  return out;
}
"""


def page(folder, name):
    return parse((folder / f"{name}.html").read_text())


def test_matmul_grids_have_a_chunk_per_instance_and_the_selected_one(tmp_path):
    out = make_pages("matmul", tmp_path / "pics", "--visualize-values=p=2,q=5")
    assert sorted(os.listdir(out)) == ["index.html", "matmul.html"]
    doc = page(out, "matmul")
    # lhs.chunkat(p, _) of [96, 72]: six row blocks of 16; instance p=2 has rows 32..47
    lhs = copy_card(doc, 32).find("svg", cls="src")
    assert lhs.attrs["viewbox"] == "0 0 72 96"
    assert tile_rects(lhs) == [(0, 16 * k, 72, 16) for k in range(6)]
    assert selected(lhs) == [(0, 32, 72, 16)]
    assert selected(copy_card(doc, 32).find("svg", cls="dst")) == [(0, 0, 72, 16)]
    # rhs.chunkat(_, q) of [72, 24]: six column blocks of 4; q=5 is the last
    rhs = copy_card(doc, 35).find("svg", cls="src")
    assert tile_rects(rhs) == [(4 * k, 0, 4, 72) for k in range(6)]
    assert selected(rhs) == [(20, 0, 4, 72)]
    # output.chunkat(p, q): 36 blocks of [16, 4], block (2, 5) selected
    res = copy_card(doc, 37).find("svg", cls="dst")
    assert len(tile_rects(res)) == 36 and selected(res) == [(20, 32, 4, 16)]
    assert "36 instances" in copy_card(doc, 37).find("p", cls="sub").all_text()


def test_rank_three_chunks_are_rows_of_the_stacked_panels(tmp_path):
    out = make_pages("ele_add", tmp_path / "pics", "--visualize-values=p=1,index(0)=2,index(1)=3")
    grid = copy_card(page(out, "ele_add"), 22).find("svg", cls="src")
    # [6, 17, 128] is 6 panels of 17 rows; chunk [1, 1, 32] at (p, index(0), 32 * index(1))
    assert grid.attrs["viewbox"] == "0 0 128 102"
    assert len(tile_rects(grid)) == 6 * 17 * 4
    assert selected(grid) == [(96, 1 * 17 + 2, 32, 1)]
    labels = [n.all_text() for n in page(out, "ele_add").find("aside").find_all("span", cls="name")]
    assert labels == ["p", "index(0)", "index(1)"]


def test_nesting_shows_levels_loops_and_counts(tmp_path):
    out = make_pages("masking", tmp_path / "pics")
    nest = page(out, "masked").find("svg", cls="nesting")
    heads = [t.all_text() for t in nest.find_all("text", cls="scope-head")]
    assert heads == ["parallel p by 3", "parallel q by 4", "if (p == 0)", "foreach r in [0, 5)"]
    counts = [t.all_text() for t in nest.find_all("text", cls="count")]
    assert counts[:2] == ["× 3 · 3 instances in all", "× 4 · 12 instances in all"]
    assert counts[3] == "× 5 iterations"
    # spec 4: the outer level's code beside `parallel q` runs as if masked to q == 0
    implicit = [t.all_text() for t in nest.find_all("text", cls="implicit")]
    assert implicit == ["as if masked: q == 0 only"] * 4


def test_masks_are_attached_to_the_copies_they_guard(tmp_path):
    out = make_pages("masking", tmp_path / "pics")
    doc = page(out, "masked")
    assert copy_card(doc, 55).attrs["data-mask"] == "[]"
    assert '"q == 0"' in copy_card(doc, 69).attrs["data-mask"]


def test_where_bindings_are_drawn(tmp_path):
    out = make_pages("where", tmp_path / "pics", "--visualize-values=p=1,m=2,n=3,k=1")
    doc = page(out, "batched_matmul")
    assert "where n_p <-> n: n_p is n" in doc.find("svg", cls="nesting").all_text()
    tb = copy_card(doc, 39)
    assert "n_p is n here" in tb.find("p", cls="where").all_text()
    # b.chunkat(p, n_p, k) of [2, 20, 12], chunk [1, 5, 6]: n_p follows n = 3
    assert selected(tb.find("svg", cls="src")) == [(6, 20 + 15, 6, 5)]
    assert not copy_card(doc, 38).find_all("p", cls="where")


def test_symbolic_sizes_are_inputs_and_shapes_follow_them(tmp_path):
    out = make_pages("symbolic", tmp_path / "pics", "--visualize-values=M=128,N=8,p=3")
    doc = page(out, "affine_rows")
    inputs = {i.attrs["data-var"]: i.attrs["value"] for i in doc.find_all("input", type="number")}
    assert list(inputs.values()) == ["128", "8"]
    grid = copy_card(doc, 22).find("svg", cls="src")
    assert grid.attrs["viewbox"] == "0 0 8 128"
    assert selected(grid) == [(0, 96, 8, 32)]
    box = copy_card(doc, 22).find("div", cls="box").all_text()
    assert "[(M / 4)*p, 0] = [96, 0]" in box and "[M / 4, N] = [32, 8]" in box


@pytest.mark.parametrize("target, profile", [("cuda", "cuda-sm80"), ("cpu", None)])
def test_memory_plan_is_the_targets_report(tmp_path, target, profile):
    """The cuda page shows the arena that --memory-report prints; the cpu one plans shared
    data with the same planner."""
    out = make_pages("matmul", tmp_path / "pics", "-t", target)
    levels = page(out, "matmul").find("section", id="memory").find_all("div", cls="level")
    shared = next(lv for lv in levels if lv.attrs["data-storage"] == "shared")
    text = shared.find("p", cls="sub").all_text()
    if target == "cuda":
        report = ok("-t", "cuda", "-S", "-o", os.devnull, "--memory-report", SAMPLES / "matmul.co.cpp",
                    cwd=tmp_path).err
        arena, limit = re.search(r"shared arena (\d+) bytes, limit (\d+)", report).groups()
        assert f"plan {arena} B" in text and f"limit {limit} B" in text
        rows = [[td.all_text() for td in tr.find_all("td")][:2] for tr in shared.find_all("tr")[1:]]
        assert rows == [[m[0], m[1]] for m in re.findall(r"^\s+(\d+)\s+(\d+)\s+\[", report, re.M)]
    else:
        assert "plan 6016 B" in text and "limit" not in text
    buffers = shared.find("svg", cls="timeline").find_all("rect", cls="buf")
    assert len(buffers) == 3


@pytest.mark.parametrize("flags, setting, limit, limit_name", [
    ((), "profile 'cuda-sm80'", 166912, "limits.shared_bytes of 'cuda-sm80'"),
    (("-arch=sm_90a",), "profile 'cuda-sm80', -arch=sm_90a", 232448, "-arch=sm_90a"),
    (("--profile", "cuda-sm90a"), "profile 'cuda-sm90a'", 232448, "limits.shared_bytes of 'cuda-sm90a'"),
], ids=["profile", "arch-option", "other-profile"])
def test_the_header_and_the_limit_name_what_is_in_force(tmp_path, flags, setting, limit, limit_name):
    """`-t cuda -arch=sm_90a` draws with sm_90a's shared-memory limit, and the pages say
    so: the default profile with the option, not the profile alone beside another GPU's
    number."""
    out = make_pages("matmul", tmp_path / "pics", "-t", "cuda", *flags)
    doc = page(out, "matmul")
    assert f"target cuda ({setting})" in doc.find("header").find("p", cls="meta").all_text()
    assert f"target cuda ({setting})" in page(out, "index").find("header").all_text()
    levels = doc.find("section", id="memory").find_all("div", cls="level")
    shared = next(lv for lv in levels if lv.attrs["data-storage"] == "shared")
    assert f"limit {limit} B ({limit_name})" in shared.find("p", cls="sub").all_text()


def test_memory_plan_is_the_factor_scratchpads(tmp_path):
    program = SAMPLES.parent / "tests" / "targets" / "factor" / "async.co.cpp"
    report = ok("-t", "factor", "-S", "-o", os.devnull, "--memory-report", program, cwd=tmp_path).err
    ok("-t", "factor", "--visualize=pics", program, cwd=tmp_path)
    expected, shown = [], []
    for html in sorted((tmp_path / "pics").glob("*.html")):
        for level in parse(html.read_text()).find_all("div", cls="level"):
            sub = level.find("p", cls="sub").all_text()
            if "scratchpad" in level.find("h3").all_text():
                shown.append((level.attrs["data-storage"],) + re.search(r"plan (\d+) B.* limit (\d+) B", sub).groups())
    for local, local_limit, shared, shared_limit in re.findall(
            r"local (\d+) of (\d+) bytes per thread, shared (\d+) of (\d+) bytes per core", report):
        expected += [("shared", shared, shared_limit), ("local", local, local_limit)]
    assert expected and sorted(shown) == sorted(expected)


def test_a_program_with_errors_gets_pages_listing_them(tmp_path):
    (tmp_path / "bad.co.cpp").write_text(BAD)
    res = fails("--visualize=pics", "bad.co.cpp", cwd=tmp_path)
    assert re.search(r"^bad\.co\.cpp:13:\d+: error: chunkat index", res.err, re.M), res
    out = tmp_path / "pics"
    assert sorted(os.listdir(out)) == ["broken.html", "good.html", "index.html"]
    broken = page(out, "broken")
    diag = broken.find("li", cls="diag")
    assert diag.attrs["data-line"] == "13" and "chunkat index is not bounded" in diag.all_text()
    assert broken.find("div", cls="bad").all_text().startswith("13")
    assert len(page(out, "good").find_all("article", cls="copy")) == 2, "what checked is drawn"
    index = page(out, "index")
    status = [td.all_text() for td in index.find_all("td", cls="ok") + index.find_all("td", cls="bad")]
    assert status == ["checked", "1 error"]


@pytest.mark.parametrize("name, text, message", [
    ("plain.cpp", "int main() { return 0; }\n", "croktilec: error: plain.cpp: no __co__ function to draw"),
    ("gone.co.cpp", None, "croktilec: error: gone.co.cpp: No such file or directory"),
])
def test_what_is_not_a_program_gets_an_error_and_no_page(tmp_path, name, text, message):
    if text is not None:
        (tmp_path / name).write_text(text)
    res = fails("--visualize=pics", name, cwd=tmp_path)
    assert res.err.strip() == message
    assert not (tmp_path / "pics").exists()


def test_an_output_folder_that_cannot_be_made(tmp_path):
    (tmp_path / "pics").write_text("a file")
    res = fails("--visualize=pics", SAMPLES / "matmul.co.cpp", cwd=tmp_path)
    assert res.err.strip() == "croktilec: error: cannot write 'pics': File exists"


def test_no_target_compiler_runs(tmp_path):
    """--visualize is -fsyntax-only work: with no compiler on PATH every target works."""
    empty = tmp_path / "bin"
    empty.mkdir()
    for target in ("cpu", "cuda", "opencl"):
        ok(f"--visualize=pics-{target}", "-t", target, SAMPLES / "pipeline.co.cpp", cwd=tmp_path,
           env={"PATH": str(empty), "CXX": "/nonexistent/c++", "NVCC": "/nonexistent/nvcc"})
        assert (tmp_path / f"pics-{target}" / "fma_tiles.html").is_file()


def test_pages_are_self_contained(tmp_path):
    out = make_pages("pipeline", tmp_path / "pics")
    for html in out.iterdir():
        text = html.read_text()
        assert not re.search(r"(src|href)=\"(https?:)?//|<link|@import|url\(", text), html
        doc = parse(text)
        assert all("src" not in s.attrs for s in doc.find_all("script"))


def test_statement_picture(tmp_path):
    ok("--visualize-stmt=35", "--visualize-values=q=1", SAMPLES / "matmul.co.cpp", cwd=tmp_path)
    svg = (tmp_path / "matmul.L35.svg").read_text()
    assert svg.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"')
    doc = parse(svg)
    assert selected(doc.find("svg", cls="src")) == [(4, 0, 4, 72)]
    assert "rhs_load = dma.copy rhs.chunkat(_, q) => shared;" in doc.find("text", cls="head").all_text()
    ok("--visualize-stmt=37", "-o", "out.svg", SAMPLES / "matmul.co.cpp", cwd=tmp_path)
    assert parse((tmp_path / "out.svg").read_text()).find("svg", cls="dst")


def test_statement_picture_errors(tmp_path):
    res = fails("--visualize-stmt=36", SAMPLES / "matmul.co.cpp", cwd=tmp_path)
    lines = res.err.splitlines()
    assert lines[0].endswith("matmul.co.cpp:36:9: error: no copy statement at line 36 to draw "
                             "(copies are at lines 32, 35, 37)")
    assert lines[2] == "        ^"
    res = fails("--visualize-stmt=35", "-o", "x.png", SAMPLES / "matmul.co.cpp", cwd=tmp_path)
    assert "writes SVG" in res.err
    res = fails("--visualize-stmt=x", SAMPLES / "matmul.co.cpp", cwd=tmp_path)
    assert res.err.strip() == "croktilec: error: --visualize-stmt takes a line number, not 'x'"
    res = fails("--visualize=p", "--visualize-values=M", SAMPLES / "matmul.co.cpp", cwd=tmp_path)
    assert "NAME=INTEGER" in res.err
    assert sorted(os.listdir(tmp_path)) == []


def test_help_names_the_options(tmp_path):
    text = run_croktilec("--help", cwd=tmp_path).out
    assert "--visualize=DIR" in text and "--visualize-stmt=LINE" in text and "<stem>.L<LINE>.svg" in text
