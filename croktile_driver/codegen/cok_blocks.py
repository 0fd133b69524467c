"""`__cok__ { ... }` blocks: the device functions they define (name, parameters, template
parameters, `extern "C"` spans), read from the C++ text without a C++ parser. The device
targets (opencl, factor) and cuda's checks read them; a module of its own so that a
target loads no other target's code generator.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from ..diagnostics import Loc
from .. import ir
from ..frontend.splitter import LineMap, Scanner
from .cxx import line_directive
from .kernel_emitter import matching



@dataclass
class CokFunction:
    name: str
    seg_index: int
    start: int                         # offsets into the segment's text
    end: int                           # one past the closing '}'
    name_span: Tuple[int, int]
    params: List[Tuple[int, int]]      # each parameter's text span
    body_open: int
    template_span: Optional[Tuple[int, int]] = None
    template_params: List[Tuple[str, bool]] = field(default_factory=list)  # (name, is_type)
    extern_spans: List[Tuple[int, int]] = field(default_factory=list)


@dataclass
class CokInfo:
    functions: Dict[str, CokFunction] = field(default_factory=dict)
    declared: Set[str] = field(default_factory=set)             # defined or declared
    blanks: Dict[int, List[Tuple[int, int]]] = field(default_factory=dict)  # seg -> spans


def masked_text(text: str) -> str:
    """The text with comments and preprocessor lines turned into spaces (newlines kept)."""
    scan = Scanner(text)
    out = list(text)
    i = 0
    while i < len(text):
        j = scan.skip_literal_or_comment(i)
        if j != i:
            if text[i] in "/#":
                for k in range(i, j):
                    if out[k] != "\n":
                        out[k] = " "
            i = j
        else:
            i += 1
    return "".join(out)


def _split_top(text: str, lo: int, hi: int, opens="([<{", closes=")]>}") -> List[Tuple[int, int]]:
    """Spans of the comma-separated items of text[lo:hi] (nesting respected)."""
    items, depth, start = [], 0, lo
    for k in range(lo, hi):
        c = text[k]
        if c in opens:
            depth += 1
        elif c in closes:
            depth -= 1
        elif c == "," and depth == 0:
            items.append((start, k))
            start = k + 1
    items.append((start, hi))
    return items



def parse_cok(segments) -> CokInfo:
    info = CokInfo()
    for si, seg in enumerate(segments):
        if seg.kind != "cok":
            continue
        text = seg.text
        masked = masked_text(text)
        scan = Scanner(text)
        blanks = info.blanks.setdefault(si, [])

        def walk(lo: int, hi: int) -> None:
            i, chunk = lo, lo
            while i < hi:
                j = scan.skip_literal_or_comment(i)
                if j != i:
                    i = j
                    continue
                c = text[i]
                if c == ";":
                    head = masked[chunk:i]
                    m = re.search(r"([A-Za-z_]\w*)\s*\(", head)
                    if m and not re.match(r"\s*typedef\b", head):
                        info.declared.add(m.group(1))
                    for e in re.finditer(r'\bextern\s*"C"', head):
                        blanks.append((chunk + e.start(), chunk + e.end()))
                    chunk = i + 1
                elif c == "{":
                    close = scan.find_matching_brace(i)
                    if close < 0 or close > hi:
                        return
                    head = masked[chunk:i]
                    if re.fullmatch(r'\s*extern\s*"C"\s*', head):
                        blanks.append((chunk, i + 1))
                        blanks.append((close, close + 1))
                        walk(i + 1, close)
                        i = chunk = close + 1
                        continue
                    if re.match(r"\s*namespace\b", head):   # not OpenCL C: the device check says so
                        i = chunk = close + 1
                        continue
                    fn = _function(head, chunk, i, close, si)
                    if fn is not None:
                        info.functions.setdefault(fn.name, fn)
                        info.declared.add(fn.name)
                        i = chunk = close + 1
                        continue
                    i = close + 1     # struct/enum/initializer body: the declaration goes on to ';'
                    continue
                i += 1

        walk(0, len(text))
    return info


def _function(head: str, base: int, brace: int, close: int, si: int) -> Optional[CokFunction]:
    if re.match(r"\s*(?:typedef|struct|union|enum|class|namespace)\b", head) or "(" not in head:
        return None
    stripped = len(head) - len(head.lstrip())
    start = base + stripped
    pos = stripped
    template_span, tparams = None, []
    m = re.match(r"\s*template\s*<", head)
    if m:
        lt = m.end() - 1
        gt = matching(head, lt, "<", ">")
        if gt < 0:
            return None
        template_span = (start, base + gt + 1)
        for a, b in _split_top(head, lt + 1, gt):
            item = head[a:b].split("=")[0].strip()
            if not item:
                continue
            words = re.findall(r"[A-Za-z_]\w*", item)
            if words:
                tparams.append((words[-1], words[0] in ("typename", "class")))
        pos = gt + 1
    paren = head.find("(", pos)
    name_m = re.search(r"([A-Za-z_]\w*)\s*$", head[:paren])
    if paren < 0 or not name_m:
        return None
    rparen = matching(head, paren, "(", ")")
    if rparen < 0:
        return None
    params = []
    inner = head[paren + 1:rparen]
    if inner.strip() and inner.strip() != "void":
        params = [(base + a, base + b) for a, b in _split_top(head, paren + 1, rparen)]
    externs = [(base + e.start(), base + e.end()) for e in re.finditer(r'\bextern\s*"C"', head)]
    return CokFunction(name_m.group(1), si, start, close + 1, (base + name_m.start(1), base + name_m.end(1)),
                       params, brace, template_span, tparams, externs)


def host_device_functions(segments) -> Dict[str, Loc]:
    """`__device__` functions of the host C++ (name -> where), for the error that says to
    move them into a `__cok__` block on separate-source targets."""
    found: Dict[str, Loc] = {}
    for seg in segments:
        if seg.kind == "host":
            for m in re.finditer(r"__device__[^;{(]*?\b([A-Za-z_]\w*)\s*\(", masked_text(seg.text)):
                found.setdefault(m.group(1), segment_loc(seg, m.start(1)))
    return found


def report_non_cok_call(diag, call: ir.Call, host_device: Dict[str, Loc], target: str) -> None:
    """The error for a call of a function that no `__cok__` block declares."""
    name = call.func
    if name in host_device:
        diag.error(call.loc, f"'{name}' is a __device__ function; on target '{target}' device code must be in a "
                             f"'__cok__ {{ }}' block: put '{name}' in '__cok__ {{ extern \"C\" ... }}'")
        diag.note(host_device[name], f"'{name}' is defined here")
    else:
        diag.error(call.loc, f"'{name}' is not defined in a '__cok__ {{ }}' block; on target '{target}' tileflow "
                             "code can only call device code of '__cok__' blocks")


def segment_loc(seg, offset: int) -> Loc:
    """The user's file, line and column of an offset into a segment's text."""
    prefix = line_directive(seg.loc) + "\n"
    loc = LineMap(prefix + seg.text, seg.loc.file).loc(offset + len(prefix))
    if "\n" not in seg.text[:offset] and "#" not in seg.text[:offset]:   # still on the segment's first line
        return Loc(loc.file, loc.line, seg.loc.col + offset)
    return loc


def blank(chars: List[str], a: int, b: int) -> None:
    for k in range(a, b):
        if chars[k] != "\n":
            chars[k] = " "
