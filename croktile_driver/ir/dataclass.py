"""``dataclass`` for the many small node classes of the AST, the IR and sema's values.

The standard decorator gives a class without a docstring one built with
``inspect.signature``, which for the ~70 node classes cost about a third of the
frontend's import time, paid by every ``croktilec`` process. Naming the class
as its docstring first skips that; nothing reads these docstrings.
"""
from __future__ import annotations

import dataclasses


def dataclass(cls=None, /, **kwargs):
    def wrap(c):
        if c.__doc__ is None:
            c.__doc__ = c.__name__
        return dataclasses.dataclass(**kwargs)(c)
    return wrap if cls is None else wrap(cls)
