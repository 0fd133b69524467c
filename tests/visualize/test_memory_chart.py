"""The memory plan's chart in a real browser (issue #40), as a reader sees it: the axis is
labelled by source line, each line once, no label over another; the parameters are drawn
as the caller's buffers (the whole function wide, above the planned pool, never in it);
a buffer's box starts under the line its live range starts at, and the table gives live
ranges in source lines. Chromium and the skips are test_browser.py's; the pages are made
once, for every sample (-t cuda, as the other browser tests draw them)."""
from __future__ import annotations

import re

import pytest

from .pages import SAMPLES, make_pages
from .test_browser import Page, browser  # noqa: F401  (the fixture: Chromium, or a skip)

NAMES = sorted(p.name[:-len(".co.cpp")] for p in SAMPLES.glob("*.co.cpp"))

# Every timeline of a page: its tick labels (text, line, the box the browser lays out),
# its tick marks, its plot area, its buffers (name, class, laid-out box) and its table rows.
CHARTS = """() => [...document.querySelectorAll('#memory div.level')].map(level => {
  const svg = level.querySelector('svg.timeline');
  const own = e => [...e.childNodes].filter(n => n.nodeType === Node.TEXT_NODE).map(n => n.data).join('');
  const box = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  return {
    storage: level.dataset.storage,
    ticks: [...svg.querySelectorAll('text.tick')].map(t => [own(t), Number(t.dataset.line), box(t)]),
    marks: [...svg.querySelectorAll('line.tick-mark')].map(m => Number(m.getAttribute('x1'))),
    plot: ['x', 'y', 'width', 'height'].map(k => Number(svg.querySelector('rect.plot').getAttribute(k))),
    peak: Number(svg.querySelector('line.peak').getAttribute('y1')),
    buffers: [...svg.querySelectorAll('rect.buf')].map(r => ({
      name: r.dataset.buffer, cls: r.getAttribute('class'), box: box(r),
      rect: ['x', 'y', 'width', 'height'].map(k => Number(r.getAttribute(k)))})),
    rows: [...level.querySelectorAll('table.plan tr')].slice(1)
      .map(tr => [...tr.querySelectorAll('td')].map(td => td.textContent)),
  };
})"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The pages of every sample, made once for the module's tests."""
    root = tmp_path_factory.mktemp("memory-chart")
    return {name: make_pages(name, root / name, "-t", "cuda") for name in NAMES}


def charts(browser, folder, page_name):  # noqa: F811  (browser: the fixture)
    page = Page(browser, folder / f"{page_name}.html")
    found = page.page.evaluate(CHARTS)
    assert page.errors == []
    page.page.close()
    return found


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("sample", NAMES)
def test_the_axis_is_labelled_by_source_line_each_line_once(browser, pages, sample):  # noqa: F811
    for html in sorted(pages[sample].glob("*.html")):
        if html.name == "index.html":
            continue
        for chart in charts(browser, pages[sample], html.stem):
            labels = [t[0] for t in chart["ticks"]]
            assert labels and all(re.fullmatch(r"L\d+", x) for x in labels), labels
            assert len(set(labels)) == len(labels), f"{html.name}: a line labelled twice: {labels}"
            assert [int(x[1:]) for x in labels] == [t[1] for t in chart["ticks"]]
            assert [t[1] for t in chart["ticks"]] == sorted(t[1] for t in chart["ticks"]), labels
            laid_out = [t[2] for t in chart["ticks"]]
            for left, right in zip(laid_out, laid_out[1:]):
                assert left[2] <= right[0], f"{html.name}: labels overlap: {labels}"
            x, _, width, _ = chart["plot"]
            assert all(x <= m <= x + width for m in chart["marks"])


def test_matmul_axis_labels_its_statement_lines(browser, pages):  # noqa: F811
    """matmul's statements are at lines 28 (the parameters' checks) to 41: each line that
    holds one is labelled once (it was L28 L28 L29 ..., every other statement)."""
    source = (SAMPLES / "matmul.co.cpp").read_text().splitlines()
    for chart in charts(browser, pages["matmul"], "matmul"):
        assert [t[0] for t in chart["ticks"]] == ["L28", "L29", "L30", "L31", "L32", "L34", "L35", "L36",
                                                  "L37", "L41"]
        assert source[30 - 1].strip() == "parallel p by 6 {" and source[41 - 1].strip() == "return output;"


@pytest.mark.parametrize("sample", NAMES)
def test_parameters_are_the_callers_buffers(browser, pages, sample):  # noqa: F811
    """A parameter spans the whole function, lies above the planned pool (never sharing an
    offset with a planned buffer or another parameter), and the table calls it the caller's."""
    for html in sorted(pages[sample].glob("*.html")):
        if html.name == "index.html":
            continue
        (global_data,) = [c for c in charts(browser, pages[sample], html.stem) if c["storage"] == "global"]
        params = [b for b in global_data["buffers"] if "param" in b["cls"].split()]
        planned = [b for b in global_data["buffers"] if "param" not in b["cls"].split()]
        assert params, f"{html.name}: no parameter drawn"
        x, _, width, _ = global_data["plot"]
        for p in params:
            px, py, pw, ph = p["rect"]
            assert (px, pw) == pytest.approx((x, width), abs=0.01), p
            assert py + ph <= global_data["peak"] + 0.01, f"{p['name']} is drawn inside the planned pool"
            assert not any(_overlap(p["box"], q["box"]) for q in params + planned if q is not p), p["name"]
        by_name = {row[3].split(" ")[0]: row for row in global_data["rows"]}
        for p in params:
            offset, _, live, what = by_name[p["name"]]
            assert (offset, live) == ("caller's", "whole function") and what.endswith(" parameter)"), what
        for q in planned:
            assert by_name[q["name"]][0] != "caller's"


def test_matmul_inputs_are_no_longer_short_lived_at_one_offset(browser, pages):  # noqa: F811
    (global_data,) = [c for c in charts(browser, pages["matmul"], "matmul") if c["storage"] == "global"]
    names = {b["name"]: b for b in global_data["buffers"]}
    assert set(names) == {"lhs", "rhs", "output"}
    assert names["lhs"]["rect"][1] != names["rhs"]["rect"][1]   # not one offset: both live throughout
    assert global_data["rows"] == [
        ["0", "9216", "L29\u2013L41", "output (global s32 [96, 24])"],
        ["caller's", "27648", "whole function", "lhs (global s32 [96, 72] parameter)"],
        ["caller's", "6912", "whole function", "rhs (global s32 [72, 24] parameter)"]]


def test_live_ranges_are_source_lines_under_their_labels(browser, pages):  # noqa: F811
    """The table's live column is in source lines, and each buffer's box starts at the tick
    of the line its live range starts at (cpu's plan of matmul's shared data)."""
    (shared,) = [c for c in charts(browser, pages["matmul"], "matmul") if c["storage"] == "shared"]
    assert [row[2:] for row in shared["rows"]] == [
        ["L31\u2013L37", "buffer (shared s32 [16, 4])"],
        ["L32\u2013L37", "lhs_load (shared s32 [16, 72])"],
        ["L34\u2013L37", "rhs_load (shared s32 [72, 4])"]]
    marks = dict(zip((t[1] for t in shared["ticks"]), shared["marks"]))
    for b in shared["buffers"]:
        first = next(row[2] for row in shared["rows"] if row[3].startswith(b["name"] + " "))
        line = int(re.match(r"L(\d+)", first).group(1))
        assert b["rect"][0] == pytest.approx(marks[line], abs=0.01), (b["name"], line)
