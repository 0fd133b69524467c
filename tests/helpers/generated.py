"""Generated sources as tests read their code: without the `#line` markers, which stand
before every generated line (codegen/cxx.py: pin_lines) and between the lines a test
matches together."""
from __future__ import annotations


def code(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("#line "))
