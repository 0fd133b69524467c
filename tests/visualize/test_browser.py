"""The pages in a real browser: headless Chromium (Debian's ``chromium``, driven by
Playwright through ``executable_path``; Playwright's own browser download is not used).
No console errors on any sample's page; the slider moves the selected chunk, a size typed
in re-evaluates the shapes, an instance a mask excludes is shown masked; the tensor-core
samples start from sizes their asserts accept and show their tensor-core pictures. A screenshot of
each sample's page is kept in ``tests/visualize/artifacts/`` (git-ignored)."""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from .pages import SAMPLES, make_pages

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


def _chromium() -> str:
    path = os.environ.get("CROKTILE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.skip("no Chromium to open the pages in (scripts/test.sh installs Debian's 'chromium' as root)")
    return path


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (the 'test' extra) is not installed")
    executable = _chromium()
    with sync_api.sync_playwright() as pw:
        try:
            chromium = pw.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        except Exception as exc:   # a browser that cannot start here (no display libraries, ...)
            pytest.skip(f"Chromium at {executable} does not start: {str(exc).splitlines()[0]}")
        yield chromium
        chromium.close()


class Page:
    """A page opened in the browser, with every console error and uncaught exception."""

    def __init__(self, browser, path: Path):
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.errors = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(path.as_uri())

    def set(self, var: str, value: int) -> None:
        self.page.eval_on_selector(f'input[data-var="{var}"]', "(el, v) => { el.value = v; "
                                   "el.dispatchEvent(new Event('input', {bubbles: true})); }", value)

    def selected(self, line: int, role: str) -> list:
        """The selected chunk's rectangles in the grid of the copy at ``line``."""
        return self.page.evaluate(
            """([line, role]) => {
                 const card = [...document.querySelectorAll('article.copy')]
                   .find(c => c.querySelector('.ln').textContent === 'L' + line);
                 return [...card.querySelectorAll(`svg.${role} .sel rect`)]
                   .map(r => ['x', 'y', 'width', 'height'].map(k => Number(r.getAttribute(k))));
               }""", [line, role])

    def card_classes(self, line: int) -> str:
        return self.page.evaluate(
            """line => [...document.querySelectorAll('article.copy')]
                 .find(c => c.querySelector('.ln').textContent === 'L' + line).className""", line)


# the samples in folders of their own are tensor-core programs: sm_90a draws them
TENSOR_SAMPLES = ["attention/attention", "gemm/gemm"]
SAMPLE_FLAGS = {name: ("-t", "cuda", "-arch=sm_90a") for name in TENSOR_SAMPLES}


@pytest.mark.parametrize("sample", sorted(p.name[:-len(".co.cpp")] for p in SAMPLES.glob("*.co.cpp")) + TENSOR_SAMPLES)
def test_sample_pages_open_without_errors(browser, tmp_path, sample):
    out = make_pages(sample, tmp_path / "pics", *SAMPLE_FLAGS.get(sample, ("-t", "cuda")))
    ARTIFACTS.mkdir(exist_ok=True)
    for html in sorted(out.glob("*.html")):
        page = Page(browser, html)
        assert page.errors == [], (html.name, page.errors)
        if html.name != "index.html":
            assert page.page.locator("svg.nesting").count() == 1
            page.page.screenshot(path=str(ARTIFACTS / f"{sample.split('/')[-1]}-{html.stem}.png"), full_page=True)
        page.page.close()


# what the reader sees of the tensor-core pictures once the script has run: the counts of
# every level, the run-time checks the sizes fail, and the sections laid out
TENSOR_VIEW = """() => ({
  counts: [...document.querySelectorAll('svg.nesting text.count')].map(t => t.textContent),
  failing: [...document.querySelectorAll('#checks li')].map(li => li.textContent),
  shown: ['copies', 'tensor-cores', 'ownership', 'swizzle', 'stages'].map(id => {
    const b = document.getElementById(id).getBoundingClientRect();
    return [id, b.width > 0 && b.height > 0];
  }),
  cards: [...document.querySelectorAll('article.copy .sub, article.mma .sub')].map(p => p.textContent.split(' · ')[0]),
  owner: document.querySelector('#ownership svg.owners rect title').textContent,
  stages: [...document.querySelectorAll('#stages svg.stages g.bar')].length,
})"""


@pytest.mark.parametrize("sample", TENSOR_SAMPLES)
def test_tensor_core_pictures(browser, tmp_path, sample):
    """The first sizes pass the function's asserts (no check fails, no level has 0
    instances); the swizzle, ownership and stages sections are drawn; the cards name
    tma.copy and the mma statements; typing a size that fails an assert lists it (the
    GEMM takes any shape: there, none fails)."""
    name = sample.split("/")[-1]
    page = Page(browser, make_pages(sample, tmp_path / "pics", *SAMPLE_FLAGS[sample]) / f"{name}.html")
    view = page.page.evaluate(TENSOR_VIEW)
    assert view["failing"] == []
    numbers = [int(n) for c in view["counts"] for n in re.findall(r"\d+", c)]
    assert numbers and 0 not in numbers, view["counts"]
    assert all(shown for _, shown in view["shown"]), view["shown"]
    assert {"tma.copy.async.swiz<128>", "tma.copy", "mma.load.swiz<128>", "mma.store", "mma.fill"} <= set(view["cards"])
    assert view["owner"] == "(0, 0): warp 0, lane 0, its element 0" and view["stages"] > 0
    if name == "gemm":   # any shape: 100 rows are a partial tile, no check fails
        page.set("lhs__dim0", 100)
        assert page.page.evaluate(TENSOR_VIEW)["failing"] == []
    else:
        page.set("q__dim1", 100)
        assert any("assertion failed" in c for c in page.page.evaluate(TENSOR_VIEW)["failing"])
    assert page.errors == []


def test_slider_moves_the_selected_chunk(browser, tmp_path):
    page = Page(browser, make_pages("matmul", tmp_path / "pics") / "matmul.html")
    assert page.selected(32, "src") == [[0, 0, 72, 16]]
    page.set("p", 3)
    assert page.selected(32, "src") == [[0, 48, 72, 16]]
    assert page.page.locator('input[data-var="p"] + output').text_content() == "3"
    page.set("q__0", 4)
    assert page.selected(35, "src") == [[16, 0, 4, 72]]
    assert page.selected(37, "dst") == [[16, 48, 4, 16]]
    assert page.errors == []


def test_typed_sizes_reshape_the_grids(browser, tmp_path):
    page = Page(browser, make_pages("symbolic", tmp_path / "pics") / "affine_rows.html")
    page.set("p", 2)
    assert page.selected(22, "src") == [[0, 32, 64, 16]]
    page.set("a__dim0", 128)   # M
    assert page.selected(22, "src") == [[0, 64, 64, 32]]
    box = page.page.locator("article.copy .box").first.text_content()
    assert "[M / 4, N] = [32, 64]" in box
    assert page.page.locator("#checks li").count() == 0
    page.set("a__dim0", 130)   # not divisible by the 4 instances of p: the run-time check fails
    assert "not divisible" in page.page.locator("#checks li").first.text_content()
    assert page.errors == []


def test_masked_instances_are_shown(browser, tmp_path):
    page = Page(browser, make_pages("masking", tmp_path / "pics") / "masked.html")
    assert "masked" not in page.card_classes(69).split()
    page.set("q", 2)   # the copy beside `parallel q` runs as if masked to q == 0
    assert "masked" in page.card_classes(69).split()
    assert "masked" not in page.card_classes(58).split()
    assert page.page.locator("article.copy.masked .why").text_content() == "q == 0"
    assert page.errors == []
