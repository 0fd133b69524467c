"""The semantic checker: checks each ``__co__`` function and lowers it to the IR.

``checker`` (``check_function``, the entry point, and ``FunctionChecker``: parameters,
return type, what is checked once the body is), ``context`` (``CheckContext``: the state
the checkers share, declared field by field), ``expressions`` and ``statements`` (the two
walks), and one checker object per family of constructs, made and owned by a walk:
``control`` (if, while, print, assert), ``loops`` (parallel, with, foreach), ``events``
(events, inthreads), ``dma`` (copies, futures, select, pad/transpose), ``spanned``
(spanned operations, arrays of buffers), ``elements`` (element access and arithmetic),
``scalars`` (scalars of every arithmetic type), ``mma`` (a package: tensor-core fragments, the
kinds of their operands and levels, row operations); ``values`` (what an expression evaluates to), ``pending`` (the
read-before-wait analysis, run once a function is checked).
May import: frontend.ast, ir, analysis (the passes run on a function's IR once it is
built), diagnostics, cstrings; never the parser, pipeline, codegen, a target or the driver.
"""
