"""The frontend: preprocess, split the C++ text from ``__co__`` functions, parse them
(PLY), check them and lower them to the IR.

``preprocess`` (pcpp, line markers kept), ``splitter`` (``__co__`` functions and
``__cok__`` blocks in the C++ text), ``lexer`` and ``parser`` (the grammar; tables built
at packaging time), ``ast`` (the syntax tree), ``sema/`` (the checks and the lowering),
``pipeline`` (the frontend's stages for one translation unit).
May import: ir, analysis, diagnostics, cstrings, paths (the runtime headers a quoted
#include may name); never codegen, a target or the driver.
"""
