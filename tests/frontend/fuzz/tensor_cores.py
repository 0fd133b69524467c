"""Mutants of the tensor-core programs (``mma``, ``tma``, warp groups) through ``croktilec``,
in-process (issue #36).

The seeds are the corpus cases that use ``mma.``/``tma.``, the gemm and attention samples and
the small programs of ``seeds/tensor_cores/``. A mutant applies one to three token-level
edits, deterministic from (campaign seed, seed program, index): a token deleted, duplicated
or swapped; a number, identifier, keyword, element type, parallel level, tensor-core word
(``mma.fill/load/store/row.*/cvt/exp/mask``, ``tma.copy/any``, ``.swiz``, ``.async``, ...)
or punctuation replaced by another of its kind, from the program or from the tensor-core
vocabulary; a line deleted, duplicated or swapped; a tensor-core statement inserted; a line
wrapped in a ``parallel`` level, ``inthreads`` or ``foreach``. Edits fall mostly on the
lines that use the tensor cores, and mostly keep the syntax. Half of the mutants keep one
``__co__`` function of the program (and its host code): one function's error rejects the
whole file, and a mutant should reach code generation often (about one in eight does).

``check`` runs ``croktilec -fsyntax-only``, then (when that accepts) ``-S``, for the cpu
target and for cuda with the program's ``-arch``. A failure is an internal compiler error
(exit status 2, "internal compiler error", a traceback), a hang (a processor-time limit
per run), ``-S`` rejecting what ``-fsyntax-only`` accepted, or a diagnostic that is not
``file:line:col: kind: message`` followed by its source line and a caret.
``minimize`` deletes lines, then tokens, while the failure stays the same.

tests/frontend/fuzz/test_tensor_core_mutants.py runs a few per seed in the suite;
``python scripts/fuzz_tensor_cores.py --seed S --count N`` runs a campaign and prints
each distinct failure with a minimized reproducer.
"""
from __future__ import annotations

import contextlib
import io
import random
import re
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from croktile_driver import cli
from croktile_driver.frontend.lexer import KEYWORDS
from helpers.corpus import CORPUS, check_source_and_caret, read_case
from helpers.inprocess import parse_diags
from helpers.paths import REPO, SAMPLES

from .harness import InputTimeout, co_regions, time_limit, tokenize

SEED_DIR = Path(__file__).parent / "seeds" / "tensor_cores"
_USES_TENSOR_CORES = re.compile(r"\b(mma|tma)\s*\.")
DEFAULT_ARCH = "sm_90a"           # a program that names no -arch: the warp-group instruction set
# A run stopped after this much processor time is a hang; the wall-clock backstop (a run that
# waits rather than computes) is WALL_FACTOR times it.
LIMIT_S = 5.0
WALL_FACTOR = 6


# ---------------------------------------------------------------------------------
# Seeds
# ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Seed:
    name: str        # the path from the repository's root
    text: str
    arch: str        # the cuda -arch its tensor-core forms are written for


def _arch(path: Path) -> str:
    case = read_case(path)
    flagged = [f.split("=", 1)[1] for f in case.flags if f.startswith("-arch=")]
    return case.cuda_arch or (flagged[0] if flagged else DEFAULT_ARCH)


def seed_paths() -> List[Path]:
    corpus = [p for p in sorted(CORPUS.rglob("*.co.cpp")) if _USES_TENSOR_CORES.search(p.read_text())]
    samples = sorted(SAMPLES.rglob("gemm*.co.cpp")) + sorted(SAMPLES.rglob("attention*.co.cpp"))
    return corpus + samples + sorted(SEED_DIR.glob("*.co.cpp"))


def seeds() -> List[Seed]:
    return [Seed(p.relative_to(REPO).as_posix(), p.read_text(), _arch(p)) for p in seed_paths()]


# ---------------------------------------------------------------------------------
# Vocabulary: what a token of each kind may become
# ---------------------------------------------------------------------------------

ELEM_TYPES = sorted(w for w, kind in KEYWORDS.items() if kind == "ELEMTYPE")
COMMON_ELEM_TYPES = ["f16", "bf16", "f32", "s8", "u8", "s32", "u32", "f8_e4m3", "f8_e5m2"]
LEVELS = ["block", "group", "thread", "device", "warp"]   # the last two are no level
TC_WORDS = ["fill", "load", "store", "row", "col", "cvt", "exp", "mask", "causal", "diag", "commit", "sp",
            "max", "sum", "scale", "div", "mean", "copy", "async", "swiz", "any", "sync", "pad", "transp",
            "data", "span", "chunkat", "subspan", "at"] + COMMON_ELEM_TYPES
TC_NUMBERS = ["0", "1", "2", "3", "4", "8", "16", "32", "48", "64", "128", "256", "-1", "0.0f", "1.5f",
              "-1.0e30f", "65536"]
STORAGE = ["shared", "local", "global"]
PUNCTUATION = [",", ";", ".", ":", "(", ")", "[", "]", "{", "}", "<", ">", "=", "=>", "#", "+=", "*", "-", "_"]
OTHER_KEYWORDS = sorted(w for w, kind in KEYWORDS.items() if kind not in ("ELEMTYPE", "STORAGE"))
NAMES = ["mc", "ma", "mb", "me", "s", "mx", "undeclared", "choreo", "mma", "tma"]
# inserted statements; {f}: a name of the program (a fragment, a buffer, a future ...)
STATEMENTS = [
    "{f} = mma.fill.f32 0.0f;", "{f} = mma.fill 0;", "mma.fill {f}, 0;", "{f} = mma.fill.f16 0.0f;",
    "{f} = mma.load {f};", "{f} = mma.load.swiz<128> {f};", "{f} = mma.load {f}.chunkat(_, 0);",
    "mma.row.col {f}, {f}, {f};", "mma.row.row {f}, {f}, {f};", "mma.row.row.sp {f}, {f}, {f}, {f};",
    "mma.store {f}, {f};", "{f} = mma.cvt.f16 {f};", "{f} = mma.cvt.bf16 {f};", "mma.exp {f}, {f}, 0.5f;",
    "{f} = mma.row.max {f};", "{f} = mma.row.sum {f};", "mma.row.max {f}, {f};", "mma.row.scale {f}, 2.0f;",
    "mma.row.div {f}, {f};", "{f} = mma.row.fill.f32 0.0f;", "mma.mask.causal {f}, 0, 0;", "mma.commit;",
    "{f} += 1.0f;", "{f}[0] += 1;", "frag.f32 {f}[2] {{0}};",
    "tma.copy {f} => {f};", "tma.copy.swiz<128> {f} => {f};", "{f} = tma.copy.async {f} => shared;",
    "{f} = tma.copy.async.swiz<64> {f} => shared;", "{f} = tma.any;", "wait {f};", "swap {f}, {f};",
    "shared f16 [64, 64] {f};", "shared f32 [16, 8] {f};", "dma.copy {f} => {f};",
]
WRAPPERS = ["parallel q by 1 : {level} {{", "parallel q by 2 : {level} {{",
            "parallel {{q0, q1}} by [1, 2] : {level} {{", "inthreads (1) {{", "foreach i in [2] {{",
            "with w in [2] {{", "if (1) {{"]
_LEVEL_CHOICES = ["block", "group", "group-4", "thread"]
_HOT_LINE = re.compile(r"\b(mma|tma|frag|wait|swap|inthreads|group|swiz|shared|parallel)\b")
_NUMBER = re.compile(r"-?\d")
_WORD = re.compile(r"[A-Za-z_]\w*$")


def kind_of(text: str, toks: Sequence[Tuple[int, int]], i: int) -> str:
    """The kind of token ``i``: number, elem, level, tcword, storage, keyword, name or punct."""
    word = text[toks[i][0]:toks[i][1]]
    if _NUMBER.match(word):
        return "number"
    if not _WORD.match(word):
        return "punct"
    before = text[toks[i - 1][0]:toks[i - 1][1]] if i else ""
    if before == "." and _in_tc_chain(text, toks, i):
        return "tcword"
    if word in KEYWORDS and KEYWORDS[word] == "ELEMTYPE":
        return "elem"
    if before == ":" or word in ("block", "group", "thread"):
        return "level"
    if word in STORAGE:
        return "storage"
    return "keyword" if word in KEYWORDS else "name"


def _in_tc_chain(text, toks, i) -> bool:
    """Whether token ``i`` is a word of an ``mma.``/``tma.``/``dma.`` chain."""
    while i >= 2 and text[toks[i - 1][0]:toks[i - 1][1]] == ".":
        i -= 2
    return text[toks[i][0]:toks[i][1]] in ("mma", "tma", "dma")


def _program_words(text: str, toks, kind: str, near: Optional[int] = None) -> List[str]:
    """The program's own words of a kind: in the ``__co__`` function around position ``near``
    (the names in scope there, mostly), else in all of them."""
    regions = co_regions(text)
    around = [r for r in regions if near is not None and r[0] <= near < r[1]]
    return sorted({text[a:b] for j, (a, b) in enumerate(toks)
                   if any(lo <= a < hi for lo, hi in around or regions) and kind_of(text, toks, j) == kind})


def _pool(text: str, toks, kind: str, near: int) -> List[str]:
    if kind == "number":
        return _program_words(text, toks, "number", near) + TC_NUMBERS
    if kind == "name":
        return _program_words(text, toks, "name", near) * 4 + NAMES
    return {"elem": ELEM_TYPES + COMMON_ELEM_TYPES, "level": LEVELS, "tcword": TC_WORDS, "storage": STORAGE,
            "keyword": OTHER_KEYWORDS, "punct": PUNCTUATION}[kind]


# ---------------------------------------------------------------------------------
# Mutators: (rng, text) -> text
# ---------------------------------------------------------------------------------

def _pick(rng: random.Random, text: str, toks) -> Optional[int]:
    """A token's index: on a line that uses the tensor cores 60% of the time, else in a
    ``__co__`` function 75% of the rest, else anywhere."""
    if not toks:
        return None
    roll = rng.random()
    if roll < 0.6:
        hot = [j for j, (a, _) in enumerate(toks) if _HOT_LINE.search(_line_at(text, a))]
        if hot:
            return rng.choice(hot)
    if roll < 0.9:
        regions = co_regions(text)
        inside = [j for j, (a, _) in enumerate(toks) if any(lo <= a < hi for lo, hi in regions)]
        if inside:
            return rng.choice(inside)
    return rng.randrange(len(toks))


def _line_at(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start:end if end >= 0 else len(text)]


def m_delete_token(rng, text):
    toks = tokenize(text)
    i = _pick(rng, text, toks)
    return text if i is None else text[:toks[i][0]] + text[toks[i][1]:]


def m_duplicate_token(rng, text):
    toks = tokenize(text)
    i = _pick(rng, text, toks)
    if i is None:
        return text
    a, b = toks[i]
    return text[:b] + " " + text[a:b] + text[b:]


def m_swap_tokens(rng, text):
    toks = tokenize(text)
    i = _pick(rng, text, toks)
    j = i + 1 if i is not None and rng.random() < 0.5 else _pick(rng, text, toks)
    if i is None or j is None or j >= len(toks) or i == j:
        return text
    (a0, a1), (b0, b1) = sorted([toks[i], toks[j]])
    return text[:a0] + text[b0:b1] + text[a1:b0] + text[a0:a1] + text[b1:]


def m_replace_same_kind(rng, text):
    """A token replaced by another of its kind (the program's own words, or the vocabulary's)."""
    toks = tokenize(text)
    for _ in range(3):   # mostly a word or number: punctuation replaced mostly ends in a syntax error
        i = _pick(rng, text, toks)
        if i is None or kind_of(text, toks, i) != "punct":
            break
    if i is None:
        return text
    a, b = toks[i]
    return text[:a] + rng.choice(_pool(text, toks, kind_of(text, toks, i), a)) + text[b:]


def m_insert_word(rng, text):
    """A tensor-core word, element type, level, number or punctuation put between two tokens."""
    toks = tokenize(text)
    i = _pick(rng, text, toks)
    if i is None:
        return text
    pool = rng.choice([TC_WORDS, COMMON_ELEM_TYPES, LEVELS, TC_NUMBERS, PUNCTUATION, ["mma.", "tma.", "group-4"]])
    pos = rng.choice(toks[i])
    return text[:pos] + " " + rng.choice(pool) + " " + text[pos:]


def _hot_line(rng, lines: List[str]) -> int:
    hot = [j for j, line in enumerate(lines) if _HOT_LINE.search(line)]
    return rng.choice(hot) if hot else rng.randrange(len(lines))


def m_delete_line(rng, text):
    lines = text.split("\n")
    del lines[_hot_line(rng, lines)]
    return "\n".join(lines)


def m_duplicate_line(rng, text):
    lines = text.split("\n")
    i = _hot_line(rng, lines)
    lines.insert(i + rng.choice([0, 1, 2]), lines[i])
    return "\n".join(lines)


def m_swap_lines(rng, text):
    lines = text.split("\n")
    i = _hot_line(rng, lines)
    j = min(len(lines) - 1, max(0, i + rng.choice([-2, -1, 1, 2]))) if rng.random() < 0.7 else _hot_line(rng, lines)
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def m_insert_statement(rng, text):
    """A tensor-core statement, with names of the program, after a ';' or '{' of a __co__ function."""
    toks = tokenize(text)
    regions = co_regions(text)
    ends = [b for a, b in toks if text[a:b] in (";", "{") and any(lo <= a < hi for lo, hi in regions)]
    if not ends:
        return text
    pos = rng.choice(ends)
    names = _program_words(text, toks, "name", pos) or NAMES
    stmt = re.sub(r"\{f\}", lambda _: rng.choice(names), rng.choice(STATEMENTS)).replace("{{", "{").replace("}}", "}")
    return text[:pos] + " " + stmt + text[pos:]


def m_wrap_line(rng, text):
    """A line put inside a parallel level, inthreads, foreach, with or if."""
    lines = text.split("\n")
    i = _hot_line(rng, lines)
    head = rng.choice(WRAPPERS).format(level=rng.choice(_LEVEL_CHOICES))
    lines[i] = f"{head}\n{lines[i]}\n}}"   # the brace on a line of its own: after a // comment
    return "\n".join(lines)


# (mutator, weight): mostly edits that keep the syntax, so that the checks and code generation
# behind the parser see most mutants
MUTATORS = [(m_replace_same_kind, 4), (m_insert_statement, 2), (m_delete_line, 1), (m_duplicate_line, 1),
            (m_swap_lines, 1), (m_wrap_line, 1), (m_delete_token, 1), (m_duplicate_token, 1), (m_swap_tokens, 1),
            (m_insert_word, 1)]


def keep_one_function(rng, text):
    """The program with one of its ``__co__`` functions (and its host code): a mutant whose
    edits leave that one correct reaches code generation, whatever the other functions hold."""
    regions = co_regions(text)
    if len(regions) < 2:
        return text
    kept = rng.choice(regions)
    for lo, hi in reversed(regions):
        if (lo, hi) != kept:
            text = text[:lo] + text[hi:]
    return text


def make_mutant(seed: Seed, campaign: int, index: int) -> Tuple[str, List[str]]:
    """Mutant ``index`` of ``seed`` in campaign ``campaign``: deterministic, independent of the others."""
    rng = random.Random(f"{campaign}:{seed.name}:{index}")
    text, applied = seed.text, []
    if rng.random() < 0.5:
        text, applied = keep_one_function(rng, text), ["keep_one_function"]
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        mutator = rng.choices([m for m, _ in MUTATORS], [w for _, w in MUTATORS])[0]
        text = mutator(rng, text)
        applied.append(mutator.__name__[2:])
    return text, applied


# ---------------------------------------------------------------------------------
# Running croktilec on a mutant
# ---------------------------------------------------------------------------------

@dataclass
class Failure:
    key: str          # the kind of failure: one report per key
    target: str
    argv: List[str]   # the croktilec command that failed (its input file last but -o)
    detail: str       # what it printed, or the traceback
    last_frame: str = ""


def croktilec(argv: List[str], limit_s: float) -> Tuple[Optional[int], str, str]:
    """``cli.main(argv)`` in this process: (exit status or None after a hang, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with time_limit(limit_s * WALL_FACTOR), time_limit(limit_s, clock="cpu"), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = cli.main(argv)
    except InputTimeout:
        return None, out.getvalue(), err.getvalue() + traceback.format_exc()
    return rc, out.getvalue(), err.getvalue()


def target_flags(target: str, arch: str) -> List[str]:
    return ["-t", "cpu"] if target == "cpu" else ["-t", "cuda", f"-arch={arch}"]


def check(text: str, arch: str, work: Path, targets: Iterable[str] = ("cpu", "cuda"),
          limit_s: float = LIMIT_S, name: str = "mutant.co.cpp") -> Optional[Failure]:
    """The first failure of ``-fsyntax-only`` then ``-S``, per target, on ``text`` written to
    ``work/name`` (None: none)."""
    path = work / name
    path.write_text(text)
    for target in targets:
        flags = target_flags(target, arch)
        argv = ["-fsyntax-only", *flags, "--debug", str(path)]
        rc, out, err = croktilec(argv, limit_s)
        failure = judge(rc, out, err, text, path, argv, target)
        if failure is not None:
            return failure
        if rc != 0:
            continue   # rejected: -S would report the same
        argv = ["-S", *flags, "--debug", str(path), "-o", str(path.with_suffix(f".{target}.out"))]
        rc, out, err = croktilec(argv, limit_s)
        failure = judge(rc, out, err, text, path, argv, target)
        if failure is None and rc != 0:
            first = next((d.msg for d in parse_diags(err) if d.kind == "error"), err.strip()[:200])
            failure = Failure(f"-S rejects what -fsyntax-only accepts ({target}): {_shape(first)}", target, argv, err)
        if failure is not None:
            return failure
    return None


_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+), in (\S+)', re.M)


def judge(rc: Optional[int], out: str, err: str, text: str, path: Path, argv: List[str],
          target: str) -> Optional[Failure]:
    """A failure of one croktilec run, or None."""
    stage = argv[0]
    if rc is None:
        return Failure(f"hang in {stage}", target, argv, err, _last_frame(err, ours=True))
    if rc == 2 or "internal compiler error" in err or "Traceback (most recent call last)" in err:
        frame = _last_frame(err)
        exc = re.search(r"internal compiler error: (\w+)", err)
        return Failure(f"internal error: {exc.group(1) if exc else '?'} in {frame.split(' ', 1)[0] or '?'}",
                       target, argv, err, frame)
    if rc not in (0, 1):
        return Failure(f"exit status {rc} from {stage}", target, argv, err)
    problem = diagnostic_problem(err, text, path)
    if problem is None and stage == "-fsyntax-only" and out:
        problem = "-fsyntax-only printed to stdout"
    if problem is None and rc == 1 and not any(d.kind == "error" for d in parse_diags(err)):
        problem = "exit status 1 without an error"
    if problem is None and rc == 0 and any(d.kind == "error" for d in parse_diags(err)):
        problem = "an error, but exit status 0"
    return None if problem is None else Failure(_shape(problem), target, argv, err)


def diagnostic_problem(err: str, text: str, path: Path) -> Optional[str]:
    """What is wrong with the diagnostics on ``err``: each must be ``FILE:LINE:COL: kind: msg``
    naming the input, followed by its source line and a caret under the column."""
    lines, source = err.splitlines(), text.split("\n")
    explained = set()
    for d in parse_diags(err):
        explained.update({d.index, d.index + 1, d.index + 2})
        if d.file != str(path):
            return f"a diagnostic names another file: {d.file}: {d.msg}"
        if not 1 <= d.line <= len(source):
            return f"a diagnostic's line is outside the file: {d.msg}"
        try:
            check_source_and_caret(lines, d, source)
        except AssertionError as exc:
            return f"no source line and caret: {exc}"
    stray = [line for i, line in enumerate(lines) if i not in explained and line.strip()]
    if stray:
        return f"a diagnostic without file:line:col: {stray[0]}"
    return None


def _last_frame(err: str, ours: bool = False) -> str:
    """``file.py:LINE (function)`` of a traceback's innermost frame (of croktile_driver with ``ours``)."""
    frames = [f for f in _FRAME.findall(err) if not ours or "croktile_driver" in f[0]]
    if not frames:
        return ""
    file, line, func = frames[-1]
    return f"{Path(file).name}:{line} ({func})"


def _shape(message: str) -> str:
    """A message with its names and numbers blanked: one key for one kind of failure."""
    return re.sub(r"'[^']*'|\"[^\"]*\"|\b\d+\b", "_", message.split("\n", 1)[0])[:140]


# ---------------------------------------------------------------------------------
# Minimizing a failing input
# ---------------------------------------------------------------------------------

def _token_pieces(text: str) -> List[str]:
    """``text`` cut before each token (a token keeps the blanks before it)."""
    cuts = [a for a, _ in tokenize(text)][1:]
    bounds = [0] + cuts + [len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]


def minimize(text: str, still_fails: Callable[[str], bool], budget_s: float = 60.0) -> str:
    """The input with lines, then tokens, deleted in runs of halving length while
    ``still_fails`` holds (what is left when ``budget_s`` runs out)."""
    deadline = time.monotonic() + budget_s
    for split in (lambda t: t.splitlines(keepends=True), _token_pieces):
        pieces = split(text)
        size = max(1, len(pieces) // 2)
        while True:
            i = 0
            while i < len(pieces):
                if time.monotonic() > deadline:
                    return "".join(pieces)
                candidate = pieces[:i] + pieces[i + size:]
                if candidate and still_fails("".join(candidate)):
                    pieces = candidate
                else:
                    i += size
            if size == 1:
                break
            size = max(1, size // 2)
        text = "".join(pieces)
    return text


def minimize_failure(text: str, arch: str, failure: Failure, work: Path, budget_s: float = 60.0,
                     limit_s: float = LIMIT_S) -> str:
    """``text`` minimized while it fails the same way on the same target."""
    def still_fails(candidate: str) -> bool:
        again = check(candidate, arch, work, (failure.target,), limit_s)
        return again is not None and again.key == failure.key
    return minimize(text, still_fails, budget_s)


# ---------------------------------------------------------------------------------
# A campaign
# ---------------------------------------------------------------------------------

@dataclass
class Found:
    """A distinct failure: its first mutant, and how many mutants showed it."""
    failure: Failure
    seed: Seed
    index: int
    applied: List[str]
    mutant: str
    count: int = 1
    indices: List[int] = field(default_factory=list)
    minimized: Optional[str] = None


def mutants(campaign: int, count: int, programs: Sequence[Seed]):
    """(index, seed, mutant text, mutations) for ``count`` mutants, the seeds taken in turn
    (twice as often a program without expected errors: its mutants reach code generation)."""
    turns = [s for s in programs for _ in range(1 if "expect-error" in s.text else 2)]
    for i in range(count):
        seed = turns[i % len(turns)]
        text, applied = make_mutant(seed, campaign, i)
        yield i, seed, text, applied


def run_campaign(campaign: int, count: int, work: Path, programs: Optional[Sequence[Seed]] = None,
                 limit_s: float = LIMIT_S, progress: Optional[Callable[[int, int], None]] = None
                 ) -> Dict[str, Found]:
    """Every mutant checked; the failures by key, in the order first seen."""
    found: Dict[str, Found] = {}
    for i, seed, text, applied in mutants(campaign, count, programs or seeds()):
        failure = check(text, seed.arch, work, limit_s=limit_s)
        if failure is not None:
            if failure.key in found:
                found[failure.key].count += 1
                found[failure.key].indices.append(i)
            else:
                found[failure.key] = Found(failure, seed, i, applied, text, indices=[i])
        if progress is not None:
            progress(i + 1, len(found))
    return found


def command(failure: Failure) -> str:
    """The shell command that reproduces ``failure`` (its output to ``out``)."""
    return "croktilec " + " ".join("out" if a.endswith(".out") else a for a in failure.argv)
