"""The C++ emission every target shares: nothing here knows one target.

``cxx`` (types, conditions, statements, the ``StatementWriter`` base, and ``At``: where a
statement is written, what every statement visitor ``s_X(self, s, at)`` takes),
``signatures`` (a function's host, device-data and destination forms), ``host_unit`` (the
host translation unit), ``kernel_emitter`` (what kernel emitters share: expressions,
loops, names, the barrier state threaded through a group's statements),
``element_writer`` (element arithmetic and conversions), ``fragments`` and ``rows``
(tensor-core fragments and their row operations), ``device_host`` (host code of the
device targets), ``dma_loops`` (copies as loops), ``fill_literal``,
``cok_blocks`` (the functions of ``__cok__`` blocks), ``half_alias``, ``lean_headers`` and
``macro_guard`` (the generated file's head).
May import: ir, analysis, frontend (its splitter and pipeline types), diagnostics,
cstrings, paths; never driver or a target.
"""
