"""-MD / -MMD with -MF / -MT: make-style depfiles that name the .co.cpp and its headers."""
from __future__ import annotations

import re
from typing import Dict, List

import pytest

from helpers.croktilec import leftovers, ok, run_program
from helpers.programs import ADD_KERNEL, ADD_MAIN

SOURCE = ('#include <iostream>\n#include "user.h"\n#include "local.h"\n'
          + ADD_KERNEL + ADD_MAIN.replace("int main() {", "int main() { (void)USER_VALUE; (void)LOCAL_VALUE;"))


def parse_depfile(text: str) -> Dict[str, List[str]]:
    """{target: [deps]} of a make fragment (continuations joined, '\\ ' kept as a space)."""
    rules: Dict[str, List[str]] = {}
    text = text.replace("\\\n", " ")
    for line in text.splitlines():
        if not line.strip():
            continue
        words = [w.replace("\\ ", " ") for w in re.findall(r"(?:\\ |[^\s])+", line)]
        colon = next(i for i, w in enumerate(words) if w.endswith(":"))
        targets = words[:colon] + [words[colon][:-1]]
        for t in targets:
            rules.setdefault(t, []).extend(words[colon + 1:])
    return rules


@pytest.fixture
def project(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "inc").mkdir()
    (tmp_path / "src" / "k.co.cpp").write_text(SOURCE)
    (tmp_path / "src" / "local.h").write_text("#define LOCAL_VALUE 1\n")
    (tmp_path / "inc" / "user.h").write_text("#define USER_VALUE 2\n")
    return tmp_path


def _assert_no_generated_file(deps):
    assert not any(".gen." in d or "croktile-" in d for d in deps), deps


def test_MMD_beside_the_executable(project):
    ok("-MMD", "src/k.co.cpp", "-Iinc", "-o", "app", cwd=project)
    assert run_program(project / "app").stdout == "Test Passed\n"
    rules = parse_depfile((project / "app.d").read_text())
    assert list(rules) == ["app"], "the target is the executable"
    deps = rules["app"]
    assert deps[0] == "src/k.co.cpp", "the .co.cpp, not the generated file, comes first"
    assert "inc/user.h" in deps and "src/local.h" in deps
    assert not any("iostream" in d or d.startswith("/usr/") for d in deps), "-MMD: no system headers"
    _assert_no_generated_file(deps)
    assert leftovers(project) == []


def test_MD_MF_MT_with_c(project):
    (project / "deps").mkdir()
    ok("-c", "-MD", "-MF", "deps/k.dep", "-MT", "my target", "-MT", "other", "src/k.co.cpp", "-Iinc", cwd=project)
    assert (project / "k.o").exists()
    text = (project / "deps" / "k.dep").read_text()
    assert text.startswith("my\\ target other:"), "targets escaped for make"
    rules = parse_depfile(text)
    assert set(rules) == {"my target", "other"}
    deps = rules["other"]
    assert deps[0] == "src/k.co.cpp"
    assert "inc/user.h" in deps and "src/local.h" in deps
    assert any(d.endswith("/iostream") for d in deps), "-MD lists system headers"
    _assert_no_generated_file(deps)


def test_MMD_several_sources_one_executable(project):
    """Every source's dependencies go into the executable's one depfile."""
    (project / "main.cpp").write_text('#include "user.h"\nint helper() { return USER_VALUE; }\n')
    ok("-MMD", "-MF", "all.d", "src/k.co.cpp", "main.cpp", "-Iinc", cwd=project)
    assert (project / "a.out").exists()
    rules = parse_depfile((project / "all.d").read_text())
    assert list(rules) == ["a.out"]
    deps = rules["a.out"]
    assert deps[0] == "src/k.co.cpp" and "main.cpp" in deps and "src/local.h" in deps
    assert deps.count("inc/user.h") == 1
    _assert_no_generated_file(deps)
    assert leftovers(project) == []


def test_depfile_paths_with_spaces(tmp_path):
    d = tmp_path / "my dir"
    d.mkdir()
    (d / "k.co.cpp").write_text(SOURCE.replace('#include "user.h"\n', '#include "local.h"\n')
                                .replace("(void)USER_VALUE;", ""))
    (d / "local.h").write_text("#define LOCAL_VALUE 1\n")
    ok("-c", "-MMD", "my dir/k.co.cpp", "-o", "my dir/k.o", cwd=tmp_path)
    text = (d / "k.d").read_text()
    assert text.startswith("my\\ dir/k.o:")
    rules = parse_depfile(text)
    assert rules["my dir/k.o"][:1] == ["my dir/k.co.cpp"] and "my dir/local.h" in rules["my dir/k.o"]
