"""The semantic checks of ``__co__`` functions and their lowering to the IR.

``checker`` (a function's scopes, parameters and statements) with the forms it checks
in modules of their own: ``dma``, ``events``, ``loops``, ``mma`` and ``fragments``,
``scalars``, ``elements``, ``spanned`` (spanned data and its methods), ``control``
(control flow); ``values`` (what an expression evaluates to), ``pending`` (copies in
flight), ``syntax`` (shared wording).
May import: ir, analysis, frontend.ast, diagnostics, cstrings.
"""
