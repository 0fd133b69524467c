"""Pictures of the tiling for the documentation site, drawn by ``croktilec --visualize``.

The site build (``mkdocs build``) loads this file as a hook. It does two things:

- **the samples**: it runs ``croktilec --visualize=DIR`` for each ``samples/*.co.cpp``
  and ``samples/NAME/NAME.co.cpp`` (with the ``-t`` and ``-arch=`` of the first
  ``croktilec`` command in the sample's header, so gemm and attention draw for sm_90a),
  adds the pages it writes to the site under ``visualize/<sample>/``, draws the sample's
  first copy statement with ``--visualize-stmt`` (an SVG beside them) and lists them on
  the Pictures page, each with its picture inline, in place of the line
  ``<!-- pictures -->``;
- **the pages' own programs**: a line ``<!-- picture FILE: STATEMENT -->`` (or
  ``<!-- picture FILE: STATEMENT | p=1,q=2 -->``) in any page is replaced by the picture of
  the copy STATEMENT (the first line that contains that text) of the program the page shows
  as ```` ```{.cpp title="FILE"} ````, drawn by ``croktilec --visualize-stmt`` (with
  ``--visualize-values``) into ``figures/<page>/``. A marker whose program or statement
  is not on its page fails the build.

Where croktilec does not recognise ``--visualize`` (or ``--visualize-stmt``), a driver older
than the feature, it prints why and the pages say so: the build still passes.

Also a script: ``python docs/gen_pictures.py OUT_DIR`` writes the samples' pictures to OUT_DIR.
"""
from __future__ import annotations

import logging
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Optional, Tuple

REPO = Path(__file__).resolve().parent.parent
# the samples, and those in a folder of their own (samples/gemm/gemm.co.cpp)
SAMPLES = sorted((REPO / "samples").glob("*.co.cpp")) + sorted(
    p for p in (REPO / "samples").glob("*/*.co.cpp") if p.name == f"{p.parent.name}.co.cpp")
# the target a sample's own header builds it for: `//   croktilec -t cuda -arch=sm_90a samples/...`
HEADER_COMMAND = re.compile(r"^//\s+croktilec\s+(?P<flags>.*?)\s+samples/", re.M)
MARKER = "<!-- pictures -->"
SUBDIR = "visualize"
FIGURES = "figures"   # the pictures of the pages' own programs: figures/<page>/<stem>.L<line>.svg
# <!-- picture FILE: STATEMENT --> or <!-- picture FILE: STATEMENT | NAME=N,... -->, alone on its line
PICTURE = re.compile(r"^<!-- picture (?P<file>[\w.+-]+): (?P<stmt>.+?)(?: \| (?P<values>[^|]+?))? -->[ \t]*$",
                     re.M)
# a copy statement croktilec --visualize-stmt draws
COPY = re.compile(r"\b(?:dma|tma)\.(?:copy|transp|pad)\b")
# a fenced program with a title: ```{.cpp title="x.co.cpp"} ... ```
TITLED = re.compile(r'^(?P<fence>`{3,})\{[^}\n]*title="(?P<title>[^"]+)"[^}\n]*\}[ \t]*\n'
                    r'(?P<body>.*?)^(?P=fence)[ \t]*$', re.M | re.S)
log = logging.getLogger("mkdocs.hooks.gen_pictures")


def croktilec() -> List[str]:
    """The installed croktilec, else the croktile_driver of this checkout."""
    exe = shutil.which("croktilec")
    return [exe] if exe else [sys.executable, "-m", "croktile_driver"]


def why_not_supported(cmd: List[str], option: str = "--visualize") -> Optional[str]:
    """None when croktilec has option (--visualize, --visualize-stmt), else the reason in one line."""
    try:
        res = subprocess.run(cmd + ["--help"], capture_output=True, text=True, timeout=60,
                             env=_env())
    except OSError as e:
        return f"croktilec cannot be run ({e})"
    if not re.search(rf"{re.escape(option)}\b(?!-)", res.stdout):
        if option == "--visualize":
            return "croktilec does not recognise --visualize (this driver has no pictures yet)"
        return f"croktilec does not recognise {option} (this driver draws no single copies yet)"
    return None


def _env() -> Dict[str, str]:
    env = dict(os.environ)
    if not shutil.which("croktilec"):   # python -m croktile_driver from the checkout
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def _stem(sample: Path) -> str:
    name = sample.name
    return name[: -len(".co.cpp")] if name.endswith(".co.cpp") else name.split(".")[0]


def sample_flags(sample: Path) -> List[str]:
    """The target options of the first command in the sample's header (a tensor-core sample
    draws for the architecture it needs); none where it names none."""
    m = HEADER_COMMAND.search(sample.read_text(encoding="utf-8"))
    words = m.group("flags").split() if m else []
    out = []
    for i, w in enumerate(words):
        if w == "-t" and i + 1 < len(words):
            out += [w, words[i + 1]]
        elif w.startswith("-arch="):
            out.append(w)
    return out


def _run(cmd: List[str], args: List[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(cmd + args, cwd=str(cwd), capture_output=True, text=True, timeout=120,
                          env=_env())


def _pages(sample: Path, out: Path) -> List[Path]:
    """The HTML pages croktilec wrote for one sample, index first."""
    pages = sorted(out.rglob("*.html"), key=lambda p: (p.name != "index.html", str(p)))
    if not pages:
        raise RuntimeError(f"croktilec --visualize wrote no page for {sample.name} in {out}")
    return pages


def _visualize(cmd: List[str], sample: Path, out: Path) -> List[Path]:
    """The HTML pages croktilec writes for one sample, index first. It runs in the checkout,
    so that the pages name ``samples/x.co.cpp``, not a path of the machine that built them."""
    res = _run(cmd, [f"--visualize={out}", _shown(sample, REPO)] + sample_flags(sample), REPO)
    if res.returncode != 0:
        raise RuntimeError(f"croktilec --visualize failed on {sample.name} "
                           f"(exit {res.returncode}):\n{res.stderr}")
    return _pages(sample, out)


def _shown(path: Path, cwd: Path) -> str:
    """path as croktilec is given it (and its pictures name it): relative to cwd."""
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return str(path)


class Figure:
    """The picture of one copy statement: line ``line`` of ``src`` (the text of that
    statement), drawn into ``svg`` for the values ``values`` (``--visualize-values``), by
    croktilec run in ``cwd``."""
    def __init__(self, src: Path, line: int, svg: Path, values: Optional[str] = None,
                 statement: str = "", cwd: Optional[Path] = None, flags: Optional[List[str]] = None):
        self.src, self.line, self.svg, self.values, self.statement = src, line, svg, values, statement
        self.cwd = cwd or src.parent
        self.flags = flags or []   # the target options, after the file

    @property
    def name(self) -> str:
        return _shown(self.src, self.cwd)

    def options(self) -> List[str]:
        return [f"--visualize-stmt={self.line}"] + \
            ([f"--visualize-values={self.values}"] if self.values else [])

    def command(self) -> str:
        """The croktilec command line that draws it, as a reader would type it."""
        return " ".join(["croktilec"] + self.options() + [self.name] + self.flags)


def draw(cmd: List[str], fig: Figure, pages: Optional[Path] = None) -> Figure:
    """Run ``croktilec --visualize-stmt`` for fig (with pages, ``--visualize=pages`` in the
    same run: one frontend for both)."""
    fig.svg.parent.mkdir(parents=True, exist_ok=True)
    extra = [f"--visualize={pages}"] if pages is not None else []
    res = _run(cmd, extra + fig.options() + ["-o", str(fig.svg), fig.name] + fig.flags, fig.cwd)
    if res.returncode != 0 or not fig.svg.is_file():
        run = " ".join(["croktilec"] + extra + fig.options() + [fig.name] + fig.flags)
        raise RuntimeError(f"`{run}` (in {fig.cwd}) failed (exit {res.returncode}):\n{res.stderr}")
    return fig


def copy_lines(text: str) -> List[int]:
    """The 1-based lines of text that hold a copy statement outside a // comment (and
    outside a #define: a macro's body is drawn where it is used)."""
    return [i for i, line in enumerate(text.split("\n"), 1)
            if COPY.search(line.split("//", 1)[0]) and not line.lstrip().startswith("#")]


def _statement(text: str, line: int) -> str:
    return text.split("\n")[line - 1].split("//", 1)[0].strip()


def _sample(cmd: List[str], sample: Path, out: Path, stmt: bool) -> Tuple[List[Path], Optional[Figure]]:
    """The pages of one sample and, with stmt, the picture of its first copy statement
    (both from one croktilec run where that copy draws; else the next copies are tried)."""
    text = sample.read_text(encoding="utf-8")
    lines = copy_lines(text)[:4] if stmt else []
    if not lines:
        return _visualize(cmd, sample, out), None
    errors = []
    for i, line in enumerate(lines):
        fig = Figure(sample, line, out / f"{_stem(sample)}.L{line}.svg",
                     statement=_statement(text, line), cwd=REPO, flags=sample_flags(sample))
        try:
            draw(cmd, fig, pages=out if i == 0 else None)
            return (_pages(sample, out) if i == 0 else _visualize(cmd, sample, out)), fig
        except RuntimeError as e:
            errors.append(str(e))
    raise RuntimeError(f"no copy of {sample.name} could be drawn:\n" + "\n".join(errors))


def generate(out_dir: Path, figures: Optional[Dict[str, Figure]] = None
             ) -> Tuple[Dict[str, List[Path]], Optional[str]]:
    """Pictures of every sample under out_dir/<sample>/: ({sample: pages}, None), or
    ({}, reason) when this croktilec cannot draw them. Where croktilec has
    ``--visualize-stmt`` and a dict is given as figures, it gets each sample's picture of
    its first copy ({sample: Figure}), written beside its pages."""
    cmd = croktilec()
    reason = why_not_supported(cmd)
    if reason:
        return {}, reason
    stmt = figures is not None and why_not_supported(cmd, "--visualize-stmt") is None
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        jobs = {_stem(s): pool.submit(_sample, cmd, s, out_dir / _stem(s), stmt) for s in SAMPLES}
        results = {stem: job.result() for stem, job in jobs.items()}
    if figures is not None:
        figures.update({stem: fig for stem, (_, fig) in results.items() if fig is not None})
    return {stem: pages for stem, (pages, _) in results.items()}, None


def image(fig: Figure, url: str) -> str:
    """The Markdown of a picture: the image (a link to itself, at full size), and a caption
    with the command that draws it."""
    alt = f"{fig.name}:{fig.line}: {fig.statement}".replace("[", "(").replace("]", ")")
    return (f"[![{alt}]({url}){{ .croktile-picture loading=lazy }}]({url})\n\n"
            f"*Line {fig.line} of `{fig.name}`, drawn by `{fig.command()}`.*\n")


def listing(pictures: Dict[str, List[Path]], reason: Optional[str], root: Path,
            figures: Optional[Dict[str, Figure]] = None) -> str:
    """The Markdown that replaces MARKER: a link per sample (and per page of it), and the
    picture of its first copy where figures has one."""
    if reason:
        return (f"!!! note \"No pictures in this build\"\n    {reason}; the site was built "
                "without them. A croktilec with `--visualize` draws them at the next build.\n")
    lines = []
    shown = {_stem(s): _shown(s, REPO) for s in SAMPLES}
    for stem, pages in pictures.items():
        links = ", ".join(f"[{p.stem}]({SUBDIR}/{p.relative_to(root).as_posix()})" for p in pages[1:])
        main = f"[`{shown.get(stem, f'samples/{stem}.co.cpp')}`]({SUBDIR}/{pages[0].relative_to(root).as_posix()})"
        lines.append(f"- {main}" + (f": {links}" if links else ""))
        fig = (figures or {}).get(stem)
        if fig is not None:
            url = f"{SUBDIR}/{fig.svg.relative_to(root).as_posix()}"
            lines.append("")
            lines.extend(("    " + l) if l else "" for l in image(fig, url).rstrip("\n").split("\n"))
            lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


# --- the pages' own programs --------------------------------------------------------------
def page_figures(page: str, markdown: str, src_dir: Path, out_root: Path) -> List[Tuple[str, Figure]]:
    """The picture markers of one page (its path in docs/, its text): (marker, Figure) each,
    the program written to src_dir, its picture to be drawn under out_root/FIGURES/<page>/."""
    found = []
    programs = {m.group("title"): m.group("body") for m in TITLED.finditer(markdown)}
    for m in PICTURE.finditer(markdown):
        name, stmt, values = m.group("file"), m.group("stmt").strip(), m.group("values")
        if name not in programs:
            raise RuntimeError(f"{page}: {m.group(0)}: the page shows no program titled {name!r}")
        body = programs[name]
        lines = [i for i, l in enumerate(body.split("\n"), 1) if stmt in l]
        if not lines:
            raise RuntimeError(f"{page}: {m.group(0)}: no line of {name} contains {stmt!r}")
        src = src_dir / page[: -len(".md")] / name
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text(body, encoding="utf-8")
        svg = out_root / FIGURES / page[: -len(".md")] / f"{_stem(src)}.L{lines[0]}.svg"
        found.append((m.group(0), Figure(src, lines[0], svg, values and values.strip(),
                                         _statement(body, lines[0]))))
    return found


# --- mkdocs hooks -------------------------------------------------------------------------
_state: Dict[str, object] = {}


def on_files(files, config):
    """Draw the samples and the pages' pictures into a temporary folder and add its files
    to the site."""
    from mkdocs.structure.files import File

    tmp = Path(tempfile.mkdtemp(prefix="croktile-pictures-"))
    _state["tmp"] = tmp
    cmd = croktilec()
    # the pages' markers first: a page that names a program it does not show fails the build
    # whatever croktilec can do
    marked: Dict[str, List[Tuple[str, Figure]]] = {}
    for f in files.documentation_pages():
        text = Path(f.abs_src_path).read_text(encoding="utf-8")
        if PICTURE.search(text):
            marked[f.src_uri] = page_figures(f.src_uri, text, tmp / "src", tmp)
    _state["marked"] = marked
    sample_figures: Dict[str, Figure] = {}
    stmt_reason = why_not_supported(cmd, "--visualize-stmt")
    _state["stmt_reason"] = stmt_reason
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        drawn = [pool.submit(draw, cmd, fig) for figs in marked.values() for _, fig in figs] \
            if stmt_reason is None else []
        pictures, reason = generate(tmp / SUBDIR, sample_figures)
        for job in drawn:
            job.result()
    _state["listing"] = listing(pictures, reason, tmp / SUBDIR, sample_figures)
    if reason:
        log.info("gen_pictures: skipped: %s", reason)
    if stmt_reason:
        log.info("gen_pictures: no pictures of single copies: %s", stmt_reason)
    for sub in (SUBDIR, FIGURES):
        for path in sorted(p for p in (tmp / sub).rglob("*") if p.is_file()):
            files.append(File(path.relative_to(tmp).as_posix(), str(tmp), config["site_dir"],
                              config["use_directory_urls"]))
    log.info("gen_pictures: pictures of %d samples, %d pictures in the pages", len(pictures),
             sum(len(figs) for figs in marked.values()) if stmt_reason is None else 0)
    return files


def on_page_markdown(markdown, page, config, files):
    # the marker alone on its line: a page may mention it in its text
    markdown = re.sub(rf"^{re.escape(MARKER)}[ \t]*$", lambda _: str(_state.get("listing", "")).rstrip("\n"),
                      markdown, flags=re.M)
    figures = _state.get("marked", {}).get(page.file.src_uri, [])
    reason = _state.get("stmt_reason")
    tmp = _state.get("tmp")
    for marker, fig in figures:
        if reason:
            text = (f"!!! note \"No picture in this build\"\n    {reason}; `{fig.command()}` "
                    "draws it.\n")
        else:
            target = fig.svg.relative_to(tmp).as_posix()
            url = posixpath.relpath(target, posixpath.dirname(page.file.src_uri) or ".")
            text = image(fig, url)
        markdown = markdown.replace(marker, text, 1)
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
    figures: Dict[str, Figure] = {}
    pictures, reason = generate(out, figures)
    if reason:
        print(f"gen_pictures: skipped: {reason}")
        return 0
    for stem, pages in pictures.items():
        fig = figures.get(stem)
        print(f"{stem}: {pages[0]}" + (f", {fig.svg}" if fig else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
