"""The target-neutral IR: what the frontend lowers to and every later stage reads.

``from croktile_driver import ir`` gives the nodes (``nodes.py``) and the kinds of their
operations as enums (``enums.py``); ``symbolic.py`` holds
symbolic shapes (``Sym``), ``levels.py`` the parallel level kinds, ``mma_forms.py`` the
tensor-core operation forms the language accepts, ``dataclass.py`` the node decorator.
May import: ``diagnostics`` (source locations) only.
"""
from .nodes import *  # noqa: F401,F403  (the nodes are the package's interface)
