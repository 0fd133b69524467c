"""Target-neutral analyses of the IR, which the checks and the code generators share.

``fills`` (what a buffer's fill must cover), ``bounds`` (local buffers sized by their
bounds), ``block_shared`` (data a block's threads share), ``instances`` (how many
instances of a buffer are live at once), ``memplan`` (an arena's slots by live range),
``grid_split`` (a launch nest too large for one grid), ``loop_order`` (which instances
a loop runs), ``inthreads`` and ``events`` (barriers and waits across concurrent levels,
waits no trigger can end), ``barriers`` (where a group's threads need a barrier between
what one wrote and another reads: the planner the device targets share), ``futures``
(what a `wait` finds in flight) on ``flow`` (the forward dataflow the analyses of waits share).
May import: ir, diagnostics, cstrings; never frontend, codegen or a target.
"""
