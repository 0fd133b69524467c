"""The checker of the tensor-core statements (`mma.*`, `frag`), one of sema's form
checkers: ``forms`` (``MmaForms``: making fragments, the multiply, `mma.store`, updates;
the statement checker makes one), ``operands`` (``FragOperands``: the fragments of a
function, the kind each operand is and the levels that may hold a tensor-core statement,
checked in one place for every statement and target), ``rows`` (``FragmentRows``: the
row operations of attention's softmax).
May import: frontend.ast, frontend.sema's shared modules (context, values, elements, dma),
ir, diagnostics; never the parser, pipeline, codegen, a target or the driver.
"""
from .forms import MmaForms

__all__ = ["MmaForms"]
