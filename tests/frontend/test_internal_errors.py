"""An internal compiler error: exit status 2, one line, no traceback unless --debug."""
from __future__ import annotations


import pytest

from croktile_driver.frontend.sema import checker as sema
from helpers.corpus import CORPUS

ELE_ADD = CORPUS / "spec" / "spec1_ele_add.co.cpp"


@pytest.fixture
def broken_sema(monkeypatch):
    def boom(self):
        raise RuntimeError("simulated frontend bug")
    monkeypatch.setattr(sema.FunctionChecker, "run", boom)


def test_internal_error_is_one_line(broken_sema, croktilec):
    r = croktilec("-fsyntax-only", ELE_ADD)
    assert r.rc == 2
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err
    assert lines[0].startswith("croktilec: internal compiler error: RuntimeError: simulated frontend bug")
    assert "--debug" in lines[0]
    assert "Traceback" not in r.err


def test_internal_error_with_debug_shows_traceback(broken_sema, croktilec):
    r = croktilec("--debug", "-fsyntax-only", ELE_ADD)
    assert r.rc == 2
    assert "Traceback (most recent call last)" in r.err
    assert "simulated frontend bug" in r.err
    assert "internal compiler error" in r.err


def test_internal_error_in_parser(monkeypatch, croktilec):
    from croktile_driver.frontend import parser

    def boom(self, *args, **kwargs):
        raise KeyError("parser state")
    monkeypatch.setattr(parser.CroktileParser, "parse", boom)
    r = croktilec("--dump-ast", ELE_ADD)
    assert r.rc == 2 and r.out == ""
    assert len(r.err.strip().splitlines()) == 1
    assert "internal compiler error: KeyError" in r.err
