"""The driver: options, profiles, jobs and files, as gcc's driver does them.

``options`` (the typed option table), ``inputs`` (reading sources, -D/-U), ``profiles``
(toolchain profiles), ``toolchain`` (``ToolChain``: what the driver asks a target),
``jobs`` (the plan of jobs for a command line and running them), ``atomic`` (outputs
written whole or not at all), ``interrupts`` (a signal ends a run cleanly),
``filelock``, ``server`` and ``serve_main`` (the warm compile server),
``python_bindings`` (the module ``croktile.load`` builds).
May import: anything below it (compiler, frontend, analysis, codegen, targets); only
``cli`` imports the driver. This ``__init__`` imports nothing: croktilec's start-up
reads ``interrupts`` first.
"""
