"""Pictures of the tiling (``--visualize``, ``--visualize-stmt``): HTML pages and SVG drawn
from the tileflow IR, one module per job: ``model`` (the values a reader sets and how
symbolic values are evaluated), ``nesting`` (parallel levels and loops), ``grids`` (the
chunks a copy moves), ``memory`` (the memory plan per storage level), ``page`` (the HTML),
``command`` (the command line's side).
May import: ir, frontend, analysis, codegen, compiler, the driver, and a target only
through its package (the factor target's scratchpad plan)."""
