"""The value of a filled declaration (`local f16 [8] t{1.5f};`) as a literal of the
buffer's element type, for C++ code or for device code that stores f16/bf16 as bits."""
from __future__ import annotations

import math
import struct

from .. import ir


def _f16_bits(v: float) -> int:
    try:
        return struct.unpack("<H", struct.pack("<e", v))[0]
    except OverflowError:
        return 0xFC00 if v < 0 else 0x7C00


def _bf16_bits(v: float) -> int:
    bits = struct.unpack("<I", struct.pack("<f", v))[0]
    if math.isnan(v):
        return 0x7FC0
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF   # round to nearest even


def _float(v: float) -> str:
    if math.isinf(v) or math.isnan(v):
        return "(1.0f / 0.0f)" if v > 0 else ("(-1.0f / 0.0f)" if v < 0 else "(0.0f / 0.0f)")
    return repr(float(v)) + "f"


def fill_literal(elem: str, value, as_bits: bool = False) -> str:
    """``value`` (an int or a float) converted as C converts it to ``elem``."""
    if elem in ("f16", "bf16"):
        if as_bits:
            bits = _f16_bits(float(value)) if elem == "f16" else _bf16_bits(float(value))
            return f"(unsigned short){bits:#06x}"
        return f"{ir.ELEM_CTYPES[elem]}({_float(float(value))})"
    if elem == "f32":
        return _float(float(value))
    return f"({ir.ELEM_CTYPES[elem]})({int(value)}LL)"
