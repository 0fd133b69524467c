"""The documentation site builds with warnings as errors, and carries the samples' pictures.

``mkdocs build --strict`` (broken links and anchors are errors: ``mkdocs.yml``) must pass
and produce every page of the navigation. The Pictures page lists a drawing of every
sample when croktilec has ``--visualize``, and otherwise says why there are none;
``docs/gen_pictures.py`` is also checked against a stand-in croktilec that draws, so its
listing is tested before the real one exists.
"""
from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest
import yaml

from .site_build import build_site, shared_site

REPO = Path(__file__).resolve().parents[2]


def _load_gen_pictures():
    spec = importlib.util.spec_from_file_location("gen_pictures", REPO / "docs" / "gen_pictures.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen_pictures = _load_gen_pictures()


def _nav_pages(nav):
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        if isinstance(value, list):
            yield from _nav_pages(value)
        else:
            yield value


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return shared_site(tmp_path_factory)


def picture_links(html: str, stem: str):
    return re.findall(rf'href="({gen_pictures.SUBDIR}/{re.escape(stem)}/[^"]+\.html)"', html)


def test_every_page_is_built(site: Path):
    config = yaml.load((REPO / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    pages = list(_nav_pages(config["nav"]))
    on_disk = sorted(p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md"))
    assert sorted(pages) == on_disk, "mkdocs.yml's nav and the pages in docs/ differ"
    missing = [p for p in pages if not (site / p.replace(".md", ".html")).is_file()]
    assert not missing, f"pages not built: {missing}"


def test_pictures_page_lists_the_samples_or_says_why_not(site: Path):
    html = (site / "pictures.html").read_text(encoding="utf-8")
    assert gen_pictures.MARKER not in html
    reason = gen_pictures.why_not_supported(gen_pictures.croktilec())
    if reason:
        assert reason in html, "the Pictures page does not say why it has no pictures"
        return
    for sample in gen_pictures.SAMPLES:
        stem = gen_pictures._stem(sample)
        links = picture_links(html, stem)
        assert links, f"no picture of {sample.name} on the Pictures page"
        assert all((site / link).is_file() for link in links), links


FAKE_CROKTILEC = r'''#!/usr/bin/env python3
"""Stands in for a croktilec with --visualize: one page per __co__ function, an index."""
import re, sys
from pathlib import Path
if "--help" in sys.argv:
    print("  --visualize=DIR  Draw the tiling of each __co__ function as HTML pages in DIR")
    sys.exit(0)
out = Path(sys.argv[1].split("=", 1)[1]); src = Path(sys.argv[2])
out.mkdir(parents=True)
names = re.findall(r"^__co__[^(]*?(\w+)\s*\(", src.read_text(), re.M)
for n in names:
    (out / f"{n}.html").write_text(f"<html><svg></svg>{n}</html>")
(out / "index.html").write_text("<html>" + "".join(f"<a href='{n}.html'>{n}</a>" for n in names) + "</html>")
'''


def fake_croktilec(tmp_path: Path, script: str) -> str:
    """A PATH whose croktilec is script."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "croktilec"
    fake.write_text(script)
    fake.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ['PATH']}"


def test_gen_pictures_draws_every_sample_with_a_croktilec_that_can(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PATH", fake_croktilec(tmp_path, FAKE_CROKTILEC))
    out = tmp_path / "pictures"
    pictures, reason = gen_pictures.generate(out)
    assert reason is None
    assert sorted(pictures) == sorted(gen_pictures._stem(s) for s in gen_pictures.SAMPLES)
    for stem, pages in pictures.items():
        assert pages[0] == out / stem / "index.html"
        assert len(pages) >= 2, f"{stem}: no page per __co__ function"
    text = gen_pictures.listing(pictures, None, out)
    assert "- [`samples/matmul.co.cpp`](visualize/matmul/index.html)" in text


def test_gen_pictures_skips_and_says_why_without_visualize(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PATH", fake_croktilec(tmp_path, "#!/bin/sh\necho 'Usage: croktilec [options] file...'\n"))
    pictures, reason = gen_pictures.generate(tmp_path / "out")
    assert pictures == {} and "--visualize" in reason
    assert not (tmp_path / "out").exists()
    assert reason in gen_pictures.listing(pictures, reason, tmp_path / "out")


def test_site_carries_the_pictures_of_a_croktilec_that_draws(tmp_path: Path):
    """The whole hook in a real build: the pages are in the site and linked (--strict
    checks the links)."""
    out = build_site(tmp_path / "site", fake_croktilec(tmp_path, FAKE_CROKTILEC))
    html = (out / "pictures.html").read_text(encoding="utf-8")
    for sample in gen_pictures.SAMPLES:
        links = picture_links(html, gen_pictures._stem(sample))
        assert f"{gen_pictures.SUBDIR}/{gen_pictures._stem(sample)}/index.html" in links
        assert all((out / link).is_file() for link in links), links
