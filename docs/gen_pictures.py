"""Pictures of the samples for the documentation site, made by ``croktilec --visualize``.

The site build (``mkdocs build``) loads this file as a hook: it runs
``croktilec --visualize=DIR`` for each ``samples/*.co.cpp``, adds the pages it writes to
the site under ``visualize/<sample>/`` and lists them on the Pictures page, in place of the
``<!-- pictures -->`` line. Where croktilec does not recognise ``--visualize`` (a driver
older than the feature), it prints why and the page says so: the build still passes.

Also a script: ``python docs/gen_pictures.py OUT_DIR`` writes the same pictures to OUT_DIR.
"""
from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Optional, Tuple

REPO = Path(__file__).resolve().parent.parent
SAMPLES = sorted((REPO / "samples").glob("*.co.cpp"))
MARKER = "<!-- pictures -->"
SUBDIR = "visualize"
log = logging.getLogger("mkdocs.hooks.gen_pictures")


def croktilec() -> List[str]:
    """The installed croktilec, else the croktile_driver of this checkout."""
    exe = shutil.which("croktilec")
    return [exe] if exe else [sys.executable, "-m", "croktile_driver"]


def why_not_supported(cmd: List[str]) -> Optional[str]:
    """None when croktilec has --visualize, else the reason in one line."""
    try:
        res = subprocess.run(cmd + ["--help"], capture_output=True, text=True, timeout=60,
                             env=_env())
    except OSError as e:
        return f"croktilec cannot be run ({e})"
    if "--visualize" not in res.stdout:
        return "croktilec does not recognise --visualize (this driver has no pictures yet)"
    return None


def _env() -> Dict[str, str]:
    env = dict(os.environ)
    if not shutil.which("croktilec"):   # python -m croktile_driver from the checkout
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def _stem(sample: Path) -> str:
    return sample.name[: -len(".co.cpp")]


def _visualize(cmd: List[str], sample: Path, out: Path) -> List[Path]:
    """The HTML pages croktilec writes for one sample, index first."""
    res = subprocess.run(cmd + [f"--visualize={out}", str(sample)], capture_output=True,
                         text=True, timeout=120, env=_env())
    if res.returncode != 0:
        raise RuntimeError(f"croktilec --visualize failed on {sample.name} "
                           f"(exit {res.returncode}):\n{res.stderr}")
    pages = sorted(out.rglob("*.html"), key=lambda p: (p.name != "index.html", str(p)))
    if not pages:
        raise RuntimeError(f"croktilec --visualize wrote no page for {sample.name} in {out}")
    return pages


def generate(out_dir: Path) -> Tuple[Dict[str, List[Path]], Optional[str]]:
    """Pictures of every sample under out_dir/<sample>/: ({sample: pages}, None), or
    ({}, reason) when this croktilec cannot draw them."""
    cmd = croktilec()
    reason = why_not_supported(cmd)
    if reason:
        return {}, reason
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        jobs = {_stem(s): pool.submit(_visualize, cmd, s, out_dir / _stem(s)) for s in SAMPLES}
        return {stem: job.result() for stem, job in jobs.items()}, None


def listing(pictures: Dict[str, List[Path]], reason: Optional[str], root: Path) -> str:
    """The Markdown that replaces MARKER: a link per sample (and per page of it)."""
    if reason:
        return (f"!!! note \"No pictures in this build\"\n    {reason}; the site was built "
                "without them. A croktilec with `--visualize` draws them at the next build.\n")
    lines = []
    for stem, pages in pictures.items():
        links = ", ".join(f"[{p.stem}]({SUBDIR}/{p.relative_to(root).as_posix()})" for p in pages[1:])
        main = f"[`samples/{stem}.co.cpp`]({SUBDIR}/{pages[0].relative_to(root).as_posix()})"
        lines.append(f"- {main}" + (f": {links}" if links else ""))
    return "\n".join(lines) + "\n"


# --- mkdocs hooks -------------------------------------------------------------------------
_state: Dict[str, object] = {}


def on_files(files, config):
    """Draw the pictures into a temporary folder and add its files to the site."""
    from mkdocs.structure.files import File

    tmp = Path(tempfile.mkdtemp(prefix="croktile-pictures-"))
    _state["tmp"] = tmp
    pictures, reason = generate(tmp / SUBDIR)
    _state["listing"] = listing(pictures, reason, tmp / SUBDIR)
    if reason:
        log.info("gen_pictures: skipped: %s", reason)
        return files
    for path in sorted(p for p in (tmp / SUBDIR).rglob("*") if p.is_file()):
        files.append(File(path.relative_to(tmp).as_posix(), str(tmp), config["site_dir"],
                          config["use_directory_urls"]))
    log.info("gen_pictures: pictures of %d samples", len(pictures))
    return files


def on_page_markdown(markdown, page, config, files):
    if MARKER in markdown:
        return markdown.replace(MARKER, str(_state.get("listing", "")))
    return markdown


def on_post_build(config):
    tmp = _state.pop("tmp", None)
    if tmp:
        shutil.rmtree(str(tmp), ignore_errors=True)


def main(argv: List[str]) -> int:
    if len(argv) != 1:
        print("usage: python docs/gen_pictures.py OUT_DIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    pictures, reason = generate(out)
    if reason:
        print(f"gen_pictures: skipped: {reason}")
        return 0
    for stem, pages in pictures.items():
        print(f"{stem}: {pages[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
