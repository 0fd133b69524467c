"""python -m croktile.tune: croktile.autotune from the command line, for C++ and CMake users.

Tunes one function of a .co.cpp for a list of shapes on random inputs and writes the choice
per shape: a JSON file and, on stdout, the ``-D`` flags to build the chosen variant with
(``croktilec -DBN=128 ...``, or CMake's ``croktile_add_kernel(... COMPILE_DEFINITIONS
BN=128 ...)``). It shares the on-disk choices with croktile.autotune: a shape tuned here
is not timed again by a Python caller with the same arguments, and the other way round.

    python -m croktile.tune gemm.co.cpp -t cuda --profile cuda-sm90a --space BN=128,256 \\
        --space STAGES=3,4 --function gemm --shape lhs=1000x4096:f16,rhs=4096x4096:f16 \\
        --shape lhs=8192x8192,rhs=8192x8192 -o gemm.tune.json
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import warnings
from typing import Dict, List, Optional

PROG = "croktile.tune"


class UsageError(Exception):
    """A bad command line: printed as ``croktile.tune: error: ...``, exit status 1."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(prog=f"python -m {PROG}", description=__doc__.split("\n\n")[0],
                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source", help="the .co.cpp file")
    ap.add_argument("-t", "--target", help="croktilec's -t (cpu, cuda, opencl, factor)")
    ap.add_argument("--profile", help="croktilec's --profile")
    ap.add_argument("--space", action="append", default=[], metavar="NAME=V1,V2,...",
                    help="a macro and the values to try (repeatable: the variants are the product)")
    ap.add_argument("--function", help="the __co__ function to time (default: the source's only one)")
    ap.add_argument("--shape", action="append", default=[], metavar="NAME=DIMS[:DTYPE],...",
                    help="one call's arguments: each array's dimensions (1000x4096) and element type "
                         "(default: the declared one), each scalar's value (alpha=1.5); repeatable")
    ap.add_argument("--key", help="the parameters a choice depends on, comma-separated (default: every array)")
    ap.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                    help="a macro every variant is built with")
    ap.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR")
    ap.add_argument("--option", dest="options", action="append", default=[], metavar="FLAG",
                    help="another croktilec flag (write --option=-O3)")
    ap.add_argument("-o", "--output", help="the JSON file to write (default: <stem>.tune.json here)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed calls before timing (default 2)")
    ap.add_argument("--reps", type=int, help="timed calls per variant (default: as many as fit in 0.2 s)")
    ap.add_argument("-j", "--jobs", type=int, help="builds at once (default: every core)")
    return ap


def parse_value(text: str):
    """A macro value: an int where it reads as one (as the Python API would pass it), else text."""
    try:
        return int(text)
    except ValueError:
        return text


def parse_space(items: List[str]) -> Dict[str, list]:
    if not items:
        raise UsageError("no --space given (e.g. --space BN=128,256)")
    space: Dict[str, list] = {}
    for item in items:
        name, eq, values = item.partition("=")
        name = name.strip()
        options = [v.strip() for v in values.split(",") if v.strip()]
        if not eq or not name.isidentifier() or not options:
            raise UsageError(f"--space {item!r}: expected NAME=VALUE,VALUE,... (e.g. BN=128,256)")
        if name in space:
            raise UsageError(f"--space {name} is given twice")
        space[name] = [parse_value(v) for v in options]
    return space


def parse_defines(items: List[str]) -> Dict[str, Optional[str]]:
    defines: Dict[str, Optional[str]] = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not name.isidentifier():
            raise UsageError(f"-D {item!r}: expected NAME or NAME=VALUE")
        defines[name] = value if eq else None
    return defines


def parse_shape(text: str, params, function: str) -> dict:
    """One --shape: every parameter of `function` by name, an array as (dims, dtype), a
    scalar as its value."""
    from ._tune_keys import SCALAR_KINDS, canonical_dtype
    kinds = dict(params)
    given: dict = {}
    for item in (i.strip() for i in text.split(",") if i.strip()):
        name, eq, value = item.partition("=")
        if not eq:
            raise UsageError(f"--shape {text!r}: {item!r} is not NAME=VALUE")
        if name not in kinds:
            raise UsageError(f"--shape {text!r}: {function} has no parameter '{name}' "
                             f"(its parameters: {', '.join(kinds)})")
        kind = kinds[name]
        if kind in SCALAR_KINDS:
            given[name] = _scalar(value, kind, text, name)
            continue
        dims, _, dtype = value.partition(":")
        try:
            shape = tuple(int(d) for d in dims.split("x")) if dims else ()
        except ValueError:
            raise UsageError(f"--shape {text!r}: {name}'s dimensions {dims!r} are not numbers "
                             "joined by 'x' (e.g. 1000x4096)") from None
        if any(d < 0 for d in shape):
            raise UsageError(f"--shape {text!r}: {name} has a negative dimension")
        elem = canonical_dtype(dtype) if dtype else kind
        if elem is None or elem == "?":
            raise UsageError(f"--shape {text!r}: {name}: " + (f"unknown element type {dtype!r}" if dtype else
                             "its element type is not declared: write NAME=DIMS:DTYPE"))
        if kind != "?" and elem != kind:
            raise UsageError(f"--shape {text!r}: {name} is declared {kind}, not {elem}")
        given[name] = (shape, elem)
    missing = [n for n, _ in params if n not in given]
    if missing:
        raise UsageError(f"--shape {text!r}: no value for {', '.join(missing)} "
                         f"({function} takes {', '.join(n for n, _ in params)})")
    return given


def _scalar(value: str, kind: str, text: str, name: str):
    try:
        if kind == "int":
            return int(value)
        if kind == "bool":
            return {"true": True, "1": True, "false": False, "0": False}[value.lower()]
        return float(value)
    except (ValueError, KeyError):
        raise UsageError(f"--shape {text!r}: {name} takes a {kind}, not {value!r}") from None


def random_arguments(given: dict, target: Optional[str], seed: int, torch=None):
    """The call's arguments: random arrays where the function will run (PyTorch CUDA
    tensors for the cuda target when PyTorch sees a GPU), small values. PyTorch is used
    only where NumPy cannot do it (``torch``: the module, when the caller imported it)."""
    import numpy as np
    from ._tune_keys import DTYPES
    arrays = [value[1] for value in given.values() if isinstance(value, tuple)]
    if torch is None and (target == "cuda" or any(_numpy_lacks(elem) for elem in arrays)):
        torch = _torch()
    on_gpu = target == "cuda" and torch is not None and torch.cuda.is_available()
    rng = np.random.default_rng(seed)
    out = {}
    for name, value in given.items():
        if not isinstance(value, tuple):
            out[name] = value
            continue
        shape, elem = value
        library_name = DTYPES[elem]
        if on_gpu or _numpy_lacks(elem):
            if torch is None:
                raise UsageError(f"{name}: {elem} arrays need PyTorch (pip install '.[torch]')")
            dtype = getattr(torch, library_name)
            device = "cuda" if on_gpu else "cpu"
            if dtype.is_floating_point:
                out[name] = (torch.randn(shape, device=device) / 2).to(dtype)
            else:
                low = 0 if library_name.startswith(("uint", "bool")) else -8
                high = 2 if library_name == "bool" else 8
                out[name] = torch.randint(low, high, shape, device=device).to(dtype)
            continue
        dtype = np.dtype(library_name)
        if dtype.kind == "f":
            out[name] = (rng.standard_normal(shape) / 2).astype(dtype)
        else:
            low = 0 if dtype.kind in "ub" else -8
            out[name] = rng.integers(low, 2 if dtype.kind == "b" else 8, shape).astype(dtype)
    return out


def _numpy_lacks(elem: str) -> bool:
    """Whether only PyTorch makes arrays of croktile's element type `elem` (bf16, fp8)."""
    import numpy as np
    from ._tune_keys import DTYPES
    return elem in DTYPES and not hasattr(np, DTYPES[elem])


def _names_an_element_numpy_lacks(shapes: List[str]) -> bool:
    """Whether a --shape names an element type that only PyTorch makes arrays of."""
    return any(_numpy_lacks(elem) for text in shapes for elem in re.findall(r":(\w+)", text))


def _torch():
    try:
        import torch
        return torch
    except ImportError:
        return None


def main(argv: Optional[List[str]] = None) -> int:
    try:
        return _run(_parser().parse_args(argv))
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


def _run(args) -> int:
    import croktile
    from ._tune_keys import key_of
    if not args.shape:
        raise UsageError("no --shape given (e.g. --shape lhs=1000x4096:f16,rhs=4096x4096:f16)")
    if not os.path.isfile(args.source):
        raise UsageError(f"{args.source}: No such file")
    for name, value in (("--reps", args.reps), ("--jobs", args.jobs)):
        if value is not None and value < 1:
            raise UsageError(f"{name} must be at least 1")
    if args.warmup < 0:
        raise UsageError("--warmup must be at least 0")
    # PyTorch, where the arrays will need it, is imported before the search starts building:
    # imported after (the cpu target's s32 arrays needed none), it crashed inside its own
    # import on the GPU machine (Python 3.12, torch 2.11: a segfault in torch/_ops.py)
    torch = _torch() if args.target == "cuda" or _names_an_element_numpy_lacks(args.shape or []) else None
    warnings.showwarning = lambda message, *rest, **kw: print(f"{PROG}: warning: {str(message).replace('croktile.autotune: ', '', 1)}", file=sys.stderr)
    key = [k.strip() for k in args.key.split(",") if k.strip()] if args.key else None
    try:
        tuned = croktile.autotune(args.source, parse_space(args.space), key=key, target=args.target,
                                  profile=args.profile, options=args.options, include_dirs=args.include_dirs,
                                  defines=parse_defines(args.defines), jobs=args.jobs, warmup=args.warmup,
                                  reps=args.reps)
        functions = tuned.functions()
        function = args.function
        if function is None:
            if len(functions) != 1:
                raise UsageError(f"{args.source} has {len(functions)} functions ({', '.join(sorted(functions))}): "
                                 "name one with --function")
            function = next(iter(functions))
        if function not in functions:
            raise UsageError(f"{args.source} has no host-callable __co__ function '{function}' "
                             f"(it has: {', '.join(sorted(functions)) or 'none'})")
        params = functions[function]
        calls = [parse_shape(text, params, function) for text in args.shape]   # every error before any timing
        if key:
            key_of(params, function, (), {n: 0 for n, _ in params}, key)   # names it checks
        rows = []
        for n, (text, given) in enumerate(zip(args.shape, calls)):
            call = random_arguments(given, args.target, seed=n, torch=torch)
            choice = tuned.choice(function, **call)
            rows.append({"shape": text, "key": choice.key, "config": choice.config, "defines": choice.defines,
                         "compile_definitions": [d[2:] for d in choice.defines], "times": choice.times,
                         "skipped": choice.skipped, "cached": choice.cached})
            best = choice.times.get(choice.label)
            took = f"{best * 1e3:.4g} ms" if best is not None else "?"
            print(f"{text}: {' '.join(choice.defines)}    ({choice.label}: {took}; "
                  f"{len(choice.times)} timed, {len(choice.skipped)} skipped{', cached' if choice.cached else ''})")
    except TypeError as exc:   # a key naming no parameter
        raise UsageError(str(exc)) from None
    except croktile.Error as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:   # the cache folder not writable, say
        raise UsageError(f"{exc.filename or ''}: {exc.strerror}" if exc.strerror else str(exc)) from None
    output = args.output or os.path.basename(args.source).split(".", 1)[0] + ".tune.json"
    report = {"source": tuned.source, "target": args.target, "profile": args.profile, "function": function,
              "device": choice.device, "space": tuned.configs, "cache": tuned.cache_file, "choices": rows}
    try:
        with open(output, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=1)
            fh.write("\n")
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror}") from None
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
