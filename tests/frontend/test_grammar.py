"""The PLY grammar stays free of shift/reduce and reduce/reduce conflicts: PLY resolves a
conflict silently at table-generation time, so a new one would change how programs parse
without any test noticing."""
from __future__ import annotations

import logging

import ply.yacc

from croktile_driver.frontend import parser


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def test_grammar_has_no_conflicts(tmp_path):
    log = logging.getLogger("croktile-grammar-test")
    handler = _Collect()
    log.addHandler(handler)
    try:
        ply.yacc.yacc(module=parser.Grammar(), write_tables=False, debug=True,
                      debugfile=str(tmp_path / "parser.out"), errorlog=log)
    finally:
        log.removeHandler(handler)
    conflicts = [m for m in handler.messages if "conflict" in m]
    assert conflicts == [], "\n".join(conflicts)
