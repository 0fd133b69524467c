"""What a new user meets in the first hour (issue #40): the site and the README.

The built site (built once per session, ``site_build.shared_site``) bears the project's
name, shows the pictures of the tiling inline (the samples' on the Pictures page, the
language guide's beside the constructs they explain), wraps long code lines, and searches
when opened from the disk; the README is a front page that lists every page; the profile
page documents every key croktilec accepts; the Python page names the extras that install
NumPy, PyTorch and CuPy; the examples write ``croktile::`` and one place explains the
``choreo::`` alias.
"""
from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

import pytest
import yaml

from .site_build import REPO, shared_site

DOCS = REPO / "docs"
README = (REPO / "README.md").read_text(encoding="utf-8")
CONFIG = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)


def _load_gen_pictures():
    spec = importlib.util.spec_from_file_location("gen_pictures_pages", DOCS / "gen_pictures.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen_pictures = _load_gen_pictures()


def nav_pages(nav):
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        if isinstance(value, list):
            yield from nav_pages(value)
        else:
            yield value


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return shared_site(tmp_path_factory)


def page(site: Path, name: str) -> str:
    return (site / name).read_text(encoding="utf-8")


# --- the site's name and repository -------------------------------------------------------
def test_site_bears_the_project_name_and_no_invented_repository(site: Path):
    name = re.match(r"# (\S+)\n", README).group(1)
    assert CONFIG["site_name"] == name == "Croktile"
    html = page(site, "index.html")
    assert re.search(r"<title>[^<]*Croktile[^<]*</title>", html)
    assert re.search(r'class="md-header__topic"[^>]*>\s*<span class="md-ellipsis">\s*Croktile\s*<', html)
    if "repo_url" in CONFIG:   # a link to the repository in the header of every page
        assert f'href="{CONFIG["repo_url"]}"' in html and 'class="md-source"' in html
    else:   # none: the project states no public address, and the site invents none
        urls = re.findall(r"https?://[^\s\")\]>]+", README + (REPO / "pyproject.toml").read_text())
        assert not [u for u in urls if "croktile" in u.lower()], \
            f"the README or pyproject names an address {urls}: set repo_url in mkdocs.yml"
        assert 'class="md-source"' not in html


# --- pictures ---------------------------------------------------------------------------
def _stmt_reason():
    return gen_pictures.why_not_supported(gen_pictures.croktilec(), "--visualize-stmt")


def _svg(path: Path) -> str:
    assert path.is_file(), f"{path} is not in the site"
    text = path.read_text(encoding="utf-8")
    assert "<svg" in text[:400], f"{path} is no SVG"
    return text


def test_pictures_page_shows_each_sample_inline(site: Path):
    html = page(site, "pictures.html")
    reason = gen_pictures.why_not_supported(gen_pictures.croktilec()) or _stmt_reason()
    if reason:
        assert reason in html, "the Pictures page does not say why it has no pictures"
        return
    for sample in gen_pictures.SAMPLES:
        if not gen_pictures.copy_lines(sample.read_text(encoding="utf-8")):
            continue   # nothing to draw but its pages
        stem = gen_pictures._stem(sample)
        imgs = re.findall(rf'<img [^>]*src="({gen_pictures.SUBDIR}/{re.escape(stem)}/[^"]+\.svg)"', html)
        assert imgs, f"no inline picture of {sample.name} on the Pictures page"
        svg = _svg(site / imgs[0])
        shown = Path(sample).resolve().relative_to(REPO.resolve()).as_posix()   # samples/x.co.cpp, samples/gemm/gemm.co.cpp
        assert f"{shown}:" in svg, "the picture names its sample as the page does"
        assert str(REPO) not in svg, "a picture names a path of the machine that built it"
    assert str(REPO) not in html + "".join(
        p.read_text(encoding="utf-8") for p in (site / gen_pictures.SUBDIR).rglob("*.html")), \
        "the samples' pages name a path of the machine that built them"


@pytest.mark.parametrize("name", ["language/dma.md", "language/parallel.md", "language/index.md"])
def test_language_pages_show_their_programs_pictures(site: Path, name: str):
    text = (DOCS / name).read_text(encoding="utf-8")
    markers = gen_pictures.PICTURE.findall(text)
    assert markers, f"{name} has no picture of a construct it explains"
    html = page(site, name.replace(".md", ".html"))
    assert "<!-- picture " not in html
    reason = _stmt_reason()
    if reason:
        assert reason in html
        return
    imgs = re.findall(r'<img [^>]*class="croktile-picture"[^>]*src="([^"]+\.svg)"', html)
    assert len(imgs) == len(markers), f"{name}: {len(markers)} markers, {len(imgs)} pictures"
    for src, (file, stmt, _values) in zip(imgs, markers):
        svg = _svg((site / name).parent / src)
        assert f"{file}:" in svg and stmt.split()[-1] in svg.replace("&gt;", ">"), \
            f"{src} is not the picture of {stmt!r} in {file}"


def test_a_picture_marker_must_name_a_program_and_statement_of_its_page(tmp_path: Path):
    prog = '```{.cpp title="a.co.cpp"}\n__co__ void f(s32 [4] a) {\n  parallel p by 2 {\n' \
           '    x = dma.copy a.chunkat(p) => local;\n  }\n}\n```\n'
    found = gen_pictures.page_figures("x.md", prog + "<!-- picture a.co.cpp: a.chunkat(p) | p=1 -->\n",
                                      tmp_path / "src", tmp_path)
    [(marker, fig)] = found
    assert fig.line == 3 and fig.values == "p=1" and fig.src.read_text().startswith("__co__")
    assert fig.command() == "croktilec --visualize-stmt=3 --visualize-values=p=1 a.co.cpp"
    with pytest.raises(RuntimeError, match="no program titled 'b.co.cpp'"):
        gen_pictures.page_figures("x.md", prog + "<!-- picture b.co.cpp: a.chunkat(p) -->\n", tmp_path, tmp_path)
    with pytest.raises(RuntimeError, match="no line of a.co.cpp contains 'dma.pad'"):
        gen_pictures.page_figures("x.md", prog + "<!-- picture a.co.cpp: dma.pad -->\n", tmp_path, tmp_path)
    # mentioned in the text, not alone on its line: no picture
    assert gen_pictures.page_figures("x.md", prog + "write `<!-- picture b.co.cpp: x -->`\n",
                                     tmp_path, tmp_path) == []


# --- code blocks wrap, search from the disk --------------------------------------------------
WRAP = re.compile(r"\.md-typeset\s+pre\s*>\s*code\s*\{[^}]*white-space:\s*pre-wrap", re.S)


def test_code_blocks_wrap_long_lines(site: Path):
    css = [c for c in CONFIG.get("extra_css", [])]
    assert css, "mkdocs.yml names no extra_css"
    html = page(site, "language/parallel.html")
    linked = [c for c in css if f'href="../{c}"' in html]
    assert linked, f"the built page links none of {css}"
    assert any(WRAP.search((site / c).read_text(encoding="utf-8")) for c in linked), \
        "no rule makes code blocks wrap (white-space: pre-wrap on .md-typeset pre > code)"


def _chromium():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium or importlib.util.find_spec("playwright") is None:
        pytest.skip("no Chromium and Playwright to open the site in (scripts/test.sh installs them)")
    from playwright.sync_api import sync_playwright
    return chromium, sync_playwright


def test_site_opened_from_the_disk_searches_and_wraps_code(site: Path):
    """As a reader opens site/index.html: search answers, nothing comes from the network,
    no code block scrolls sideways."""
    chromium, sync_playwright = _chromium()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            tab = browser.new_page(viewport={"width": 1000, "height": 800})
            remote = []
            tab.on("request", lambda r: remote.append(r.url) if not r.url.startswith(("file:", "data:", "about:", "blob:")) else None)
            tab.goto((site / "index.html").as_uri())
            box = tab.locator("input.md-search__input")
            box.click(timeout=15000)
            box.press_sequentially("chunkat", delay=20)
            tab.wait_for_selector(".md-search-result__item", timeout=15000)
            assert "parallel.html" in tab.locator(".md-search-result__list").inner_html()
            tab.goto((site / "language" / "parallel.html").as_uri())
            wide = tab.evaluate("""[...document.querySelectorAll('.md-typeset pre > code')]
                                   .filter(c => c.scrollWidth > c.clientWidth + 1).length""")
            assert wide == 0, f"{wide} code blocks of parallel.html scroll sideways"
            assert not remote, f"the site loads from the network: {remote}"
        finally:
            browser.close()


# --- the README, the profiles, Python, croktile:: ------------------------------------------
def test_readme_is_a_front_page_that_lists_every_page():
    lines = README.split("\n")
    assert len(lines) <= 300, f"README.md has {len(lines)} lines (at most 300: move detail to docs/)"
    linked = set(re.findall(r"\]\(docs/([^)#\s]+\.md)(?:#[^)]*)?\)", README))
    missing = [p for p in nav_pages(CONFIG["nav"]) if p not in linked]
    assert not missing, f"README.md's documentation section leaves out {missing}"


def test_profiles_page_documents_every_key():
    from croktile_driver.driver import profiles
    text = (DOCS / "profiles.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `(\w+)` \|", text, re.M))
    missing = [k for k in profiles.PROFILE_KEYS if k not in rows]
    assert not missing, f"docs/profiles.md has no row in its table of keys for {missing}"
    for key in (*profiles.LIMIT_KEYS, *profiles.TOP_KEYS):
        assert f"`{key}`" in text, f"docs/profiles.md does not name `{key}`"
    # and the README's cross-compiling keys lead there
    assert "docs/profiles.md" in README and "triple" in README and "sysroot" in README


def _extras():
    """pyproject.toml's optional dependencies: {extra: [requirement, ...]}."""
    try:
        import tomllib
    except ImportError:   # Python < 3.11
        tomllib = pytest.importorskip("tomli")
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return data["project"]["optional-dependencies"]


def test_python_page_names_the_extras():
    extras = _extras()
    for name in ("numpy", "torch", "cupy"):
        assert name in extras, f"pyproject.toml has no '{name}' extra"
        assert all(re.match(r"[\w-]+==[\w.]+(;|$)", r) for r in extras[name]), \
            f"the '{name}' extra is not pinned: {extras[name]}"
    text = (DOCS / "python.md").read_text(encoding="utf-8")
    intro = text.split("```python", 1)[0]
    for name, reqs in extras.items():
        if name in ("docs", "test"):
            continue
        assert f'pip install ".[{name}]"' in intro, f"docs/python.md does not say `pip install \".[{name}]\"`"
        for req in reqs:
            package, version = re.match(r"([\w-]+)==([\w.]+)", req).groups()
            assert package in intro and version in intro, f"docs/python.md does not name {package} {version}"
    # the numpy the examples get is the numpy the tests use
    test_numpy = [r for r in extras["test"] if r.startswith("numpy==")]
    assert test_numpy and any(r.startswith(test_numpy[0] + ";") for r in extras["numpy"])
    assert '".[numpy]"' in README and '".[numpy]"' in (DOCS / "getting-started.md").read_text()


def test_examples_write_croktile_and_one_place_explains_choreo():
    pages = sorted(DOCS.rglob("*.md")) + [REPO / "README.md"]
    where = {p.relative_to(REPO).as_posix(): p.read_text(encoding="utf-8").count("choreo::") for p in pages}
    where = {p: n for p, n in where.items() if n}
    assert list(where) == ["docs/language/host-code.md"], f"choreo:: outside the alias's explanation: {where}"
    text = (DOCS / "language" / "host-code.md").read_text(encoding="utf-8")
    paragraphs = [p for p in text.split("\n\n") if "choreo::" in p]
    assert len(paragraphs) == 1 and "alias" in paragraphs[0] and "namespace choreo = croktile" in paragraphs[0]
    used = sum(p.read_text(encoding="utf-8").count("croktile::") for p in pages)
    assert used > 10


# --- the generator -------------------------------------------------------------------------
def test_the_generator_choice_is_written_down_and_pinned():
    docs = _extras()["docs"]
    pins = dict(re.match(r"([\w-]+)==([\w.]+)$", r).groups() for r in docs)
    text = (DOCS / "contributing-docs.md").read_text(encoding="utf-8")
    assert "## MkDocs or Zensical" in text
    assert f"MkDocs {pins['mkdocs']}" in text and f"Material {pins['mkdocs-material']}" in text, \
        "docs/contributing-docs.md names other versions than the docs extra pins"
    assert "mkdocs build --strict" in README and "mkdocs build --strict" in text
