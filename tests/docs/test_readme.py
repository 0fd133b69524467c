"""README.md is a short front page: the two commands first, and links that resolve."""
from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")


def test_readme_opens_with_the_two_commands():
    lines = README.split("\n")
    assert lines[:6] == [
        "# Croktile", "", "```",
        "pip install . && croktilec samples/ele_add.co.cpp -o ele_add && ./ele_add",
        "bash scripts/test.sh", "```"]


def test_readme_links_to_existing_pages():
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [l for l in links if "://" not in l]
    assert any(l.startswith("docs/") for l in local), "README links to no documentation page"
    missing = [l for l in local if not (REPO / l).exists()]
    assert not missing, f"README links to missing files: {missing}"
