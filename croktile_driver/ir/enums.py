"""The IR's operation kinds as enums: a misspelt kind is an AttributeError where it is
written, not a comparison that is silently false.

Each member is also its text (a ``str``), so it prints as the word the source used and
the frontend may still build a node from that word (the node converts it).
"""
from __future__ import annotations

from enum import Enum


class _Word(str, Enum):
    """A kind that is also its word: ``str()`` and f-strings give the word."""

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


class DmaOp(_Word):
    """What a copy does to the box it moves (``Dma.op``)."""
    COPY = "copy"        # the destination is the source
    TRANSP = "transp"    # dimensions permuted (``Dma.perm``)
    PAD = "pad"          # the source surrounded by a value (``Dma.pad``)


class CopyEngine(_Word):
    """Who performs a copy (``Dma.engine``)."""
    DMA = "dma"          # `dma.copy`: the target's copy (threads, cp.async, a DMA engine)
    TMA = "tma"          # `tma.copy`: the tensor memory accelerator (cuda, sm_90)


class MmaEngine(_Word):
    """Who holds a fragment and runs its multiplies (``Frag.engine``)."""
    SYNC = "sync"        # one warp, mma.sync
    WGMMA = "wgmma"      # one warp group, wgmma


class RowOp(_Word):
    """A row operation on an accumulator or a row vector (``FragOp.op``)."""
    FILL = "fill"        # r = v
    MAX = "max"          # r = max(r, row max of x)
    SUM = "sum"          # r += row sum of x
    SCALE = "scale"      # x *= v per row
    DIV = "div"          # x /= v per row
    EXP = "exp"          # x = exp(scale * (x - m)) per row
    CAUSAL = "causal"    # elements above the diagonal = -inf
    COLS = "cols"        # elements of the columns from n on = -inf (keys past the data)
    CVT = "cvt"          # ref = x as an A operand
