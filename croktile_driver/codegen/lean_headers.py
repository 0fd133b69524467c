"""Leaves out of a generated host translation unit the runtime parts its program does not use.

croktile.h includes <random> (1 s of nvcc's time and 0.3 s of g++'s per compile) for the
host helpers ``fill_random`` and ``choreo::utils::SparsePolicy``, which only users' host
code calls; generated code never does. A program whose host code and ``__cok__`` blocks
name nothing random or sparse, and include no header of their own (``#include "..."``,
which could), is compiled with ``CROKTILE_NO_RANDOM``, which leaves them out.
"""
from __future__ import annotations

import re
from typing import List

# what may need <random> or the helpers: the helpers' names, the standard engines and
# distributions (host code relied on croktile.h for <random>), and headers we cannot see
_MAY_USE_RANDOM = re.compile(r"random|mt19937|minstd|ranlux|knuth_b|_distribution|seed_seq|sparse|"
                             r"#\s*include\s*\"", re.I)


def runtime_defines(segments) -> List[str]:
    """The ``#define`` lines that go before ``#include "croktile.h"``."""
    if any(_MAY_USE_RANDOM.search(seg.text) for seg in segments if seg.kind in ("host", "cok")):
        return []
    return ["#define CROKTILE_NO_RANDOM 1   // the program uses no random data (codegen/lean_headers.py)"]
