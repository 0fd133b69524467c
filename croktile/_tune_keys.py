"""What a tuning choice is keyed by: a function's parameters (read from a built module's
signature) and the shapes and element types of the arrays a call passes, written the way
`python -m croktile.tune --shape` spells them (``lhs=1000x4096:f16,rhs=4096x4096:f16``),
so that a choice made from Python and one made on the command line are the same entry."""
from __future__ import annotations

import re
from typing import Callable, List, Optional, Sequence, Tuple, Union

# croktile's element type names and the array libraries' (NumPy, PyTorch, CuPy, JAX) names
# of each; the same table as croktile_driver.driver.python_bindings.DTYPE_NAMES, plus the
# types a parameter cannot declare but a key may still meet
DTYPES = {"s8": "int8", "s16": "int16", "s32": "int32", "s64": "int64", "u8": "uint8", "u16": "uint16",
          "u32": "uint32", "u64": "uint64", "f16": "float16", "bf16": "bfloat16", "f32": "float32",
          "f64": "float64", "f8_e4m3": "float8_e4m3fn", "f8_e5m2": "float8_e5m2", "bool": "bool"}
_BY_LIBRARY_NAME = {v: k for k, v in DTYPES.items()}

Params = List[Tuple[str, str]]   # (name, kind): kind an element type ("f16") for an array, else "float"/"int"/"bool"
SCALAR_KINDS = ("float", "int", "bool")


_NAME_OF_DTYPE: dict = {}   # dtype object -> croktile's name (keys are computed on every call)


def dtype_name(dtype) -> str:
    """croktile's name of an array's dtype (``torch.float16``, ``np.dtype('float16')`` -> f16)."""
    try:
        return _NAME_OF_DTYPE[dtype]
    except (KeyError, TypeError):
        pass
    text = str(getattr(dtype, "name", dtype))
    text = text.rsplit(".", 1)[-1]   # torch.float16 -> float16
    name = _BY_LIBRARY_NAME.get(text, text)
    try:
        _NAME_OF_DTYPE[dtype] = name
    except TypeError:   # not hashable
        pass
    return name


def canonical_dtype(text: str) -> Optional[str]:
    """croktile's name of a dtype written by a user (f16 or float16), or None if unknown."""
    if text in DTYPES:
        return text
    return _BY_LIBRARY_NAME.get(text)


def is_array(value) -> bool:
    return hasattr(value, "shape") and hasattr(value, "dtype")


def array_text(value) -> str:
    return "x".join(map(str, value.shape)) + ":" + dtype_name(value.dtype)


_SIGNATURE = re.compile(r"def\s+\w+\((.*?)\)\s*->")
_DOC_PARAM = re.compile(r"^(\w+): (\w+) \[")


def params_of(function) -> Params:
    """The parameters of a built module's function, in order, from nanobind's signature and
    the docstring croktilec writes (``a: f16 [M, K]: an array of ...``)."""
    signature = function.__nb_signature__[0]
    head = _SIGNATURE.match(signature[0])
    declared = dict(m.groups() for m in map(_DOC_PARAM.match, (signature[1] or "").splitlines()) if m)
    params: Params = []
    for part in (head.group(1).split(",") if head else []):
        part = part.strip()
        if part in ("*", "") or part.startswith("stream"):
            continue
        name, _, annotation = part.partition(":")
        name, annotation = name.strip(), annotation.split("=")[0].strip()
        if annotation == "ArrayLike":
            params.append((name, declared.get(name, "?")))
        else:
            params.append((name, annotation if annotation in SCALAR_KINDS else "float"))
    return params


KeySpec = Union[None, Sequence[Union[str, int]], Callable]


def bind(params: Params, function: str, args: tuple, kwargs: dict) -> dict:
    """The call's arguments by parameter name (``stream=`` left out)."""
    if len(args) > len(params):
        raise TypeError(f"{function}() takes {len(params)} arguments, {len(args)} given")
    bound = {name: value for (name, _), value in zip(params, args)}
    for name, value in kwargs.items():
        if name == "stream":
            continue
        if name not in dict(params):
            raise TypeError(f"{function}() got an unexpected keyword argument '{name}'")
        bound[name] = value
    return bound


def key_of(params: Params, function: str, args: tuple, kwargs: dict, spec: KeySpec) -> str:
    """The key of a call: by default each array's ``name=DIMS:DTYPE`` in parameter order; with
    `spec` a list of parameter names (or positions), those parameters only (a scalar named
    there counts with its value); with `spec` a callable, ``str(spec(*args, **kwargs))``."""
    if callable(spec):
        return str(spec(*args, **{k: v for k, v in kwargs.items() if k != "stream"}))
    if spec is None and not kwargs and len(args) <= len(params):   # the common call, kept short
        return ",".join(f"{name}={array_text(value)}" for (name, _), value in zip(params, args) if is_array(value))
    bound = bind(params, function, args, kwargs)
    names = [name for name, _ in params]
    if spec is None:
        chosen = [n for n in names if is_array(bound.get(n))]
    else:
        chosen = []
        for item in spec:
            name = names[item] if isinstance(item, int) and 0 <= item < len(names) else item
            if name not in names:
                raise TypeError(f"key names '{item}', which is not a parameter of {function}() "
                                f"(its parameters: {', '.join(names)})")
            chosen.append(name)
        chosen.sort(key=names.index)
    parts = []
    for name in chosen:
        value = bound.get(name)
        parts.append(f"{name}={array_text(value) if is_array(value) else repr(value)}")
    return ",".join(parts)
