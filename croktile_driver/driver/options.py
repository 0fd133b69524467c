"""The command line, declared once: one ``Option`` per flag, with its help text.

Parsing follows gcc: ``-DNAME``/``-D NAME``, ``-O2``, ``-Xcompiler FLAG``, ``-###``;
anything not starting with ``-`` is an input file.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple


@dataclass(frozen=True)
class Option:
    spelling: str            # "-D", "--target", "-fsyntax-only"
    kind: str                # flag, joined (-O2), separate (-o x), joined_or_separate (-Ifoo / -I foo), eq (--x=y)
    dest: str
    help: str
    aliases: Tuple[str, ...] = ()
    multi: bool = False
    metavar: str = ""


OPTIONS: List[Option] = [
    Option("-o", "joined_or_separate", "output", "Write the output to FILE", metavar="FILE"),
    Option("-c", "flag", "stage_compile", "Compile to an object file; do not link"),
    Option("-S", "flag", "stage_source", "Stop after generating the target source", aliases=("--emit-source",)),
    Option("-E", "flag", "stage_preprocess", "Preprocess only; write the result to stdout or -o"),
    Option("-fsyntax-only", "flag", "syntax_only", "Check the input (the whole frontend) and stop"),
    Option("--dump-ast", "flag", "dump_ast", "Print the AST of each __co__ function and stop"),
    Option("--dump-ir", "flag", "dump_ir", "Print the tileflow IR of each __co__ function and stop"),
    Option("-I", "joined_or_separate", "include_dirs", "Add DIR to the include search path", multi=True, metavar="DIR"),
    Option("-D", "joined_or_separate", "defines", "Define a macro: NAME or NAME=VALUE", multi=True, metavar="MACRO"),
    Option("-U", "joined_or_separate", "undefines", "Undefine a macro", multi=True, metavar="NAME"),
    Option("-L", "joined_or_separate", "lib_dirs", "Add DIR to the library search path", multi=True, metavar="DIR"),
    Option("-l", "joined_or_separate", "libs", "Link with library LIB", multi=True, metavar="LIB"),
    Option("-O", "joined", "opt_level", "Optimisation level (0-3, s)", metavar="LEVEL"),
    Option("-g", "flag", "debug_info", "Generate debug information"),
    Option("-std=", "joined", "std", "C++ language standard for the target compiler", metavar="STD"),
    Option("-w", "flag", "no_warnings", "Suppress all warnings"),
    Option("-Werror", "flag", "werror", "Treat warnings as errors"),
    Option("-Xcompiler", "separate", "xcompiler", "Pass FLAG to the target compiler", multi=True, metavar="FLAG"),
    Option("-Xlinker", "separate", "xlinker", "Pass FLAG to the linker", multi=True, metavar="FLAG"),
    Option("-Wl,", "joined", "wl", "Pass comma-separated FLAGS to the linker", multi=True, metavar="FLAGS"),
    Option("-Wimplicit-fill", "flag", "warn_implicit_fill",
           "Warn where declared data is zero-filled because it may be read before it is written"),
    Option("-Wno-implicit-fill", "flag", "no_warn_implicit_fill", "Do not warn of implicit fills (the default)"),
    Option("-W", "joined", "warning_flags", "Warning flags, passed to the target compiler (e.g. -Wall)",
           multi=True, metavar="WARNING"),
    Option("-f", "joined", "f_flags", "Code generation flags, passed to the compiler and the linker "
           "(e.g. -fsanitize=address)", multi=True, metavar="FLAG"),
    Option("-m", "joined", "m_flags", "Machine flags, passed to the compiler and the linker (e.g. -march=native)",
           multi=True, metavar="FLAG"),
    Option("-pthread", "flag", "pthread", "Link with POSIX threads (always on for the cpu target)"),
    Option("-v", "flag", "verbose", "Print each job before running it"),
    Option("--time", "flag", "time_report", "Print the time each job takes (and nvcc's phases)",
           aliases=("-time",)),
    Option("-###", "flag", "dry_run", "Print each job, shell-quoted, and run none"),
    Option("--save-temps", "flag", "save_temps", "Keep generated sources next to the output",
           aliases=("-save-temps",)),
    Option("-MD", "flag", "dep_md", "Write a make-style depfile (with system headers) beside compiling"),
    Option("-MMD", "flag", "dep_mmd", "Write a make-style depfile (user headers only) beside compiling"),
    Option("-MF", "joined_or_separate", "dep_file", "Depfile name", metavar="FILE"),
    Option("-MT", "joined_or_separate", "dep_target", "Target named in the depfile", multi=True, metavar="TARGET"),
    Option("-t", "joined_or_separate", "target", "Target: cpu (default), cuda, opencl, factor",
           aliases=("--target",), metavar="TARGET"),
    Option("--profile", "separate", "profile", "Toolchain profile from toolchains.yaml", metavar="NAME"),
    Option("--toolchain-file", "separate", "toolchain_file", "Extra toolchain profiles (YAML)", metavar="FILE"),
    Option("-arch=", "joined", "arch", "Target architecture, e.g. sm_90a; several, sm_80,sm_90a, in one build; "
           "native: this machine's GPUs", aliases=("--arch=",), metavar="ARCH"),
    Option("-kt", "flag", "kernel_templates", "factor: generate template specialisations and C wrappers"),
    Option("--print-toolchains", "flag", "print_toolchains",
           "List the toolchain profiles (those -t/--profile select), their compilers and limits; exit"),
    Option("--format=", "joined", "print_format", "Output of --print-toolchains: text (default) or json",
           metavar="FORMAT"),
    Option("--cmake-dir", "flag", "cmake_dir", "Print the directory for CMAKE_PREFIX_PATH and exit"),
    Option("--emit-header", "separate", "emit_header", "Also write a header declaring the __co__ functions",
           metavar="FILE"),
    Option("--python-module", "flag", "python_module",
           "Build a Python extension module (-o NAME.<ext suffix>; its functions are the __co__ functions)"),
    Option("--emit-python-bindings", "separate", "emit_python_bindings",
           "Also write the module's nanobind source (with -S: for build systems)", metavar="FILE"),
    Option("--emit-python-stub", "separate", "emit_python_stub",
           "Also write the module's type stub (.pyi)", metavar="FILE"),
    Option("--python-name", "separate", "python_name",
           "The Python module's name (default: the output's file name up to the first dot)", metavar="NAME"),
    Option("--memory-report", "flag", "memory_report", "Print the memory plan of each kernel"),
    Option("--visualize=", "joined", "visualize",
           "Write pictures of the tiling into DIR (an HTML page per __co__ function and index.html); "
           "runs no compiler", metavar="DIR"),
    Option("--visualize-stmt=", "joined", "visualize_stmt",
           "Write an SVG of the copy at LINE (-o FILE; default <stem>.L<LINE>.svg)", metavar="LINE"),
    Option("--visualize-values=", "joined", "visualize_values",
           "Sizes and indices of the first picture, e.g. M=128,p=1", metavar="NAME=N,..."),
    Option("--debug", "flag", "debug", "Show Python tracebacks for internal errors"),
    Option("--version", "flag", "version", "Print the version and exit"),
    Option("--help", "flag", "help", "Print this help and exit", aliases=("-h",)),
]


class UsageError(Exception):
    pass


@dataclass
class ParsedArgs:
    values: Dict[str, object] = field(default_factory=dict)
    inputs: List[str] = field(default_factory=list)
    # every option as (dest, value) in command-line order: -D and -U act in the order given
    order: List[Tuple[str, object]] = field(default_factory=list)

    def get(self, dest: str, default=None):
        return self.values.get(dest, default)

    def __getattr__(self, dest: str):
        if dest in ("values", "inputs", "order"):
            raise AttributeError(dest)
        spec = _BY_DEST.get(dest)
        if spec is None:
            raise AttributeError(dest)
        return self.values.get(dest, [] if spec.multi else (False if spec.kind == "flag" else None))


_BY_DEST = {o.dest: o for o in OPTIONS}


def optional_warnings(args: ParsedArgs) -> List[str]:
    """The warnings of croktilec's own that are off by default and asked for (the last of
    -Wimplicit-fill / -Wno-implicit-fill wins); gcc and nvcc would reject them."""
    last = [dest for dest, _ in args.order if dest in ("warn_implicit_fill", "no_warn_implicit_fill")]
    return ["implicit-fill"] if last and last[-1] == "warn_implicit_fill" else []


def _spellings():
    out = []
    for o in OPTIONS:
        for s in (o.spelling,) + o.aliases:
            out.append((s, o))
    # the longest spelling wins (-MD before -M..., -std= before -s...)
    out.sort(key=lambda item: -len(item[0]))
    return out


_SPELLINGS = _spellings()


def parse_args(argv: List[str]) -> ParsedArgs:
    args = ParsedArgs()
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "-" or not arg.startswith("-"):
            args.inputs.append(arg)
            continue
        for spelling, opt in _SPELLINGS:
            value: Optional[str] = None
            if opt.kind == "flag":
                if arg != spelling:
                    continue
                value = True
            elif opt.kind == "joined":
                if not arg.startswith(spelling) or arg == spelling and not spelling.endswith("="):
                    if not (arg.startswith(spelling) and spelling == "-O"):
                        continue
                value = arg[len(spelling):]
                if spelling == "-O" and value == "":
                    value = "1"
            elif opt.kind == "separate":
                if arg == spelling:
                    if i >= len(argv):
                        raise UsageError(f"argument to '{spelling}' is missing (expected 1 value)")
                    value = argv[i]
                    i += 1
                elif arg.startswith(spelling + "="):
                    value = arg[len(spelling) + 1:]
                else:
                    continue
            else:  # joined_or_separate
                if arg == spelling:
                    if i >= len(argv):
                        raise UsageError(f"argument to '{spelling}' is missing (expected 1 value)")
                    value = argv[i]
                    i += 1
                elif arg.startswith(spelling):
                    if spelling.startswith("--"):
                        if not arg.startswith(spelling + "="):
                            continue
                        value = arg[len(spelling) + 1:]
                    else:
                        value = arg[len(spelling):]
                else:
                    continue
            if opt.multi:
                args.values.setdefault(opt.dest, []).append(value)
            else:
                args.values[opt.dest] = value
            args.order.append((opt.dest, value))
            break
        else:
            raise UsageError(f"unrecognized command-line option '{arg}'")
    return args


def help_text(prog: str = "croktilec") -> str:
    lines = [f"Usage: {prog} [options] file...", "", "Options:"]
    for o in OPTIONS:
        names = ", ".join((o.spelling,) + o.aliases)
        if o.metavar:
            sep = "" if o.kind == "joined" else " "
            names = f"{names}{sep}{o.metavar}"
        lines.append(f"  {names:<28} {o.help}")
    return "\n".join(lines)
