"""Pictures of the tiling (``--visualize``, ``--visualize-stmt``): HTML pages and SVG drawn
from the tileflow IR, one module per job: ``model`` (the values a reader sets and how
symbolic values are evaluated), ``sizes`` (first sizes that pass the function's checks),
``nesting`` (parallel levels and loops), ``grids`` (the chunks a copy moves), ``memory``
(the memory plan per storage level), the tensor cores: ``tensor`` (a card per mma
statement), ``fragments`` (which warp and lane hold each element), ``swizzle`` (where each
16-byte chunk of a swizzled tile lands), ``stages`` (a pipelined loop over its first
iterations); ``page`` (the HTML), ``command`` (the command line's side).
May import: ir, frontend, analysis, codegen, compiler, the driver, and a target only
through its package (the factor target's scratchpad plan)."""
