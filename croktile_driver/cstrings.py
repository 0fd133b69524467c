"""Text inside C and C++ string literals: file names in ``#line`` markers and messages.

Every generated source (host C++, OpenCL C, the preprocessed text the frontend reads)
writes file names with ``c_string``/``line_marker`` and reads markers back with
``unescape``, so a name holding ``"``, ``\\``, a newline or any other byte survives the
round trip and means the same to the C++ compiler as to croktilec.
"""
from __future__ import annotations

import re

_SIMPLE = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r",
           "?": "\\?"}   # \? keeps "??/" from being a trigraph under -std=c++14
_UNSIMPLE = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_ESCAPE = re.compile(r'\\(?:([0-7]{1,3})|x([0-9A-Fa-f]+)|(.))', re.S)


def _escape_char(ch: str) -> str:
    if ch in _SIMPLE:
        return _SIMPLE[ch]
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:   # a byte that was not UTF-8 (surrogateescape): that byte
        return f"\\{code - 0xDC00:03o}"
    if code < 0x20 or code == 0x7F:
        return f"\\{code:03o}"   # three octal digits: a digit after it cannot join it
    return ch


# a character _escape_char changes: most names have none and are written as they are
_NEEDS_ESCAPE = re.compile(r'[\\"?\x00-\x1f\x7f\udc80-\udcff]')


def escaped(text: str) -> str:
    """``text`` as the inside of a string literal (also safe in a ``//`` comment)."""
    if _NEEDS_ESCAPE.search(text) is None:
        return text
    return "".join(_escape_char(ch) for ch in text)


def c_string(text: str) -> str:
    """``text`` as a C/C++/OpenCL C string literal, quotes included."""
    return '"' + escaped(text) + '"'


def line_marker(line: int, file: str) -> str:
    """``#line LINE "FILE"``: the next line is line LINE of FILE."""
    return f"#line {line} {c_string(file)}"


def unescape(body: str) -> str:
    """The text of a string literal's inside (as written in a ``#line`` marker)."""
    def one(m: re.Match) -> str:
        octal, hexa, other = m.groups()
        if octal or hexa:
            code = int(octal, 8) if octal else int(hexa, 16)
            return chr(0xDC00 + code) if 0x80 <= code <= 0xFF else chr(min(code, 0x10FFFF))
        return _UNSIMPLE.get(other, other)
    return _ESCAPE.sub(one, body) if "\\" in body else body


LINE_DIRECTIVE = re.compile(r'^[ \t]*#[ \t]*line[ \t]+(\d+)[ \t]+"((?:[^"\\]|\\.)*)"')
_RAW_OPEN = re.compile(r'R"([^ ()\\\t\n]{0,16})\(')


def directive_lines(text: str):
    """Each line of generated C++ with the ``#line`` directive it is, as (file, line), or
    None: a line inside a raw string literal (the opencl target embeds its device program,
    directives and all, in one) or continuing a line that ends in a backslash is text."""
    raw_end = None
    continued = False
    for line in text.split("\n"):
        if raw_end is not None:
            if raw_end in line:
                raw_end = None
            yield line, None, True
            continue
        m = None if continued else LINE_DIRECTIVE.match(line)
        inside = continued
        continued = line.endswith("\\")
        opened = _RAW_OPEN.search(line)
        if opened and f"){opened.group(1)}\"" not in line[opened.end():]:
            raw_end = f"){opened.group(1)}\""
        yield line, (unescape(m.group(2)), int(m.group(1))) if m else None, inside
