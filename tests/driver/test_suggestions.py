"""Suggestions where the intended word is near (issue #40), gcc- and clang-style
(`did you mean 'parallel'?`): a misspelt keyword at the start of a statement, at the
word's line and column; a misspelt member of spanned data or a future; a target name in
another case (accepted) or misspelt, a misspelt toolchain profile. One helper makes them
all (``diagnostics.did_you_mean``)."""
from __future__ import annotations

import re

import pytest

from croktile_driver.diagnostics import did_you_mean, suggestion

from .util import fails, ok

# every statement of the body starts with a misspelt keyword: each is reported at the
# word, and the parser goes on to the next statement
KEYWORDS = """\
__device__ void kernel(int *a, int n) {}
__co__ s32 [6, 16] add(s32 [6, 16] lhs) {
  s32 [lhs.span] out;
  paralel p by 6 {
    a = dma.copy lhs.chunkat(p, _) => local;
    dam.copy a => out.chunkat(p, _);
    cal kernel(a.data, |a.span|);
    iff (p > 2) { }
    whith q in [2] { }
    foreah q { }
    whille (p < 1) { }
    f = dma.copy.async lhs.chunkat(p, _) => local;
    wiat f;
    locl s32 [4] t;
    mutabel int n = 0;
    flaot x = 1.0;
  }
  retrun out;
}
"""

GOOD = """\
__co__ s32 [6, 16] add(s32 [6, 16] lhs) {
  s32 [lhs.span] out;
  parallel p by 6 {
    a = dma.copy lhs.chunkat(p, _) => local;
    dma.copy a => out.chunkat(p, _);
  }
  return out;
}
"""


def _errors(stderr: str):
    return [line for line in stderr.splitlines() if ": error: " in line]


def test_misspelt_keywords_are_reported_at_the_word_with_the_keyword(tmp_path):
    (tmp_path / "kw.co.cpp").write_text(KEYWORDS)
    res = fails("-fsyntax-only", "kw.co.cpp", cwd=tmp_path)
    lines = KEYWORDS.splitlines()
    expected = []
    for word, meant in [("paralel", "parallel"), ("dam", "dma"), ("cal", "call"), ("iff", "if"),
                        ("whith", "with"), ("foreah", "foreach"), ("whille", "while"), ("wiat", "wait"),
                        ("locl", "local"), ("mutabel", "mutable"), ("flaot", "float"), ("retrun", "return")]:
        line = next(n for n, text in enumerate(lines, 1) if re.match(rf"\s*{word}\b", text))
        col = lines[line - 1].index(word) + 1
        what = "type name" if meant == "float" else "keyword"
        expected.append(f"kw.co.cpp:{line}:{col}: error: unknown {what} '{word}'; did you mean '{meant}'?")
    assert _errors(res.err) == expected, res.err
    # the caret is under the word, not where the grammar noticed the error ('by')
    assert "  paralel p by 6 {\n  ^\n" in res.err, res.err
    assert "expected ',' before 'by'" not in res.err


def test_a_name_that_starts_a_statement_gets_no_suggestion(tmp_path):
    """`width = 3 4;` is about a variable (`width` is near `with`): the syntax error as it was."""
    (tmp_path / "w.co.cpp").write_text(GOOD.replace("    dma.copy a", "    width = 3 4;\n    dma.copy a"))
    res = fails("-fsyntax-only", "w.co.cpp", cwd=tmp_path)
    assert _errors(res.err) == ["w.co.cpp:5:14: error: expected ';' before '4'"], res.err
    assert "did you mean" not in res.err


@pytest.mark.parametrize("member, meant, message", [
    ("chunkt", "chunkat", "spanned data has members 'span', 'data', 'chunkat', "),
    ("subspn", "subspan", "spanned data has members 'span', 'data', 'chunkat', "),
])
def test_misspelt_member_of_spanned_data(tmp_path, member, meant, message):
    src = GOOD.replace("lhs.chunkat(p, _)", f"lhs.{member}(p, _)")
    (tmp_path / "m.co.cpp").write_text(src)
    res = fails("-fsyntax-only", "m.co.cpp", cwd=tmp_path)
    col = src.splitlines()[3].index(member) + 1
    (error,) = _errors(res.err)
    assert error.startswith(f"m.co.cpp:4:{col}: error: {message}"), res.err
    assert error.endswith(f", not '{member}'; did you mean '{meant}'?"), res.err


def test_misspelt_member_of_a_future(tmp_path):
    src = GOOD.replace("dma.copy a =>", "local s32 [a.spam] c;\n    dma.copy a =>")
    (tmp_path / "f.co.cpp").write_text(src)
    res = fails("-fsyntax-only", "f.co.cpp", cwd=tmp_path)
    col = src.splitlines()[4].index("spam") + 1
    assert _errors(res.err) == [
        f"f.co.cpp:5:{col}: error: a future has members 'data', 'span', 'chunkat' and the spanned operations "
        "(chunk, subspan, modspan, view, at, from, span_as, step, stride), not 'spam'; did you mean 'span'?"], res.err


def test_a_member_far_from_every_one_gets_no_suggestion(tmp_path):
    (tmp_path / "m.co.cpp").write_text(GOOD.replace("lhs.chunkat(p, _)", "lhs.frobnicate(p, _)"))
    res = fails("-fsyntax-only", "m.co.cpp", cwd=tmp_path)
    assert "not 'frobnicate'" in res.err and "did you mean" not in res.err, res.err


def test_a_target_name_in_another_case_is_that_target(tmp_path):
    (tmp_path / "g.co.cpp").write_text(GOOD)
    res = ok("-t", "CUDA", "-fsyntax-only", "g.co.cpp", cwd=tmp_path)
    assert res.err == ""
    res = ok("--target=Cuda", "-###", "g.co.cpp", "-o", "app", cwd=tmp_path)
    assert "-t cuda --profile cuda-sm80" in res.err, res.err


@pytest.mark.parametrize("flags, message", [
    (["-t", "cdua"], "croktilec: error: unknown target 'cdua' (known: cpu, cuda, opencl, factor); "
                     "did you mean 'cuda'?"),
    (["-t", "opncl"], "croktilec: error: unknown target 'opncl' (known: cpu, cuda, opencl, factor); "
                      "did you mean 'opencl'?"),
    (["-t", "tpu9000"], "croktilec: error: unknown target 'tpu9000' (known: cpu, cuda, opencl, factor)"),
])
def test_an_unknown_target_suggests_the_near_one(tmp_path, flags, message):
    (tmp_path / "g.co.cpp").write_text(GOOD)
    res = fails(*flags, "-fsyntax-only", "g.co.cpp", cwd=tmp_path)
    assert res.err.splitlines() == [message], res.err
    res = fails(*flags, "g.co.cpp", "-o", "app", cwd=tmp_path)   # a build says the same
    assert res.err.splitlines() == [message], res.err


@pytest.mark.parametrize("name, meant", [("cuda-sm09", "cuda-sm80"), ("CUDA-SM90A", "cuda-sm90a"),
                                         ("factor-sm", "factor-sim"), ("no-such-thing", None)])
def test_an_unknown_profile_suggests_the_near_one(tmp_path, name, meant):
    (tmp_path / "g.co.cpp").write_text(GOOD)
    res = fails("--profile", name, "-fsyntax-only", "g.co.cpp", cwd=tmp_path)
    (line,) = res.err.splitlines()
    assert line.startswith(f"croktilec: error: unknown toolchain profile '{name}' (known: "), res.err
    if meant is None:
        assert line.endswith(")"), res.err
    else:
        assert line.endswith(f"); did you mean '{meant}'?"), res.err


def test_did_you_mean():
    """The one helper: edit distance with gcc's cutoff (about a third of the word), a swap of
    neighbours one edit, case free, the candidate sharing most of the word among equals."""
    keywords = ["parallel", "foreach", "with", "dma", "wait", "call", "return", "if", "while"]
    assert did_you_mean("paralel", keywords) == "parallel"
    assert did_you_mean("wiat", keywords) == "wait"          # neighbours swapped
    assert did_you_mean("dam", keywords) == "dma"
    assert did_you_mean("ret", keywords) is None             # three edits from `return`: too far
    assert did_you_mean("p", ["by"]) is None
    assert did_you_mean("x", ["y"]) is None                  # one letter: nothing to go by
    assert did_you_mean("with", keywords) is None            # the word itself: nothing to suggest
    assert did_you_mean("CUDA", ["cpu", "cuda"]) == "cuda"
    members = ["span", "data", "chunkat", "chunk", "subspan", "at"]
    assert did_you_mean("chunkt", members) == "chunkat"      # one edit from both; more in common
    assert did_you_mean("chunkk", members) == "chunk"
    assert suggestion("spam", members) == "; did you mean 'span'?"
    assert suggestion("frobnicate", members) == ""
