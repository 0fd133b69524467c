"""croktile.autotune: the best of several builds of one .co.cpp (macro values: tile sizes,
stages), chosen per key (the shapes and dtypes of a call's arrays) on the caller's own
arguments, as Triton's ``@triton.autotune`` does for its kernels.

The first call with a new key builds every variant (in parallel: each build is a croktilec
process), calls each on the arguments, times it and keeps the fastest; the choice goes to
disk (_tune_cache), so another process with the same key loads that one variant and times
nothing. A variant that fails to build, raises or fails `check` is skipped with a warning.
"""
from __future__ import annotations

import itertools
import os
import sys
import threading
import warnings
from typing import Callable, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Union

from . import _tune_cache as disk
from ._errors import BuildError, Error
from ._load import _flags, load
from ._tune_keys import KeySpec, Params, key_of, params_of
from ._tune_timing import timer_for


class Choice(NamedTuple):
    """The variant chosen for one function and key: its macro values (`config`), the times
    measured (by label, in the timer's unit) and the variants skipped, with why."""
    function: str
    key: str
    device: str
    config: Dict[str, object]
    times: Dict[str, float]
    skipped: Dict[str, str]
    cached: bool = False   # taken from disk, not timed by this process

    @property
    def label(self) -> str:
        return label_of(self.config)

    @property
    def defines(self) -> List[str]:
        """The choice as croktilec flags (``-DBN=128``), for a C++ or CMake build."""
        return [f"-D{n}" if v is None else f"-D{n}={v}" for n, v in self.config.items()]


def label_of(config: Mapping[str, object]) -> str:
    return ",".join(f"{n}={v}" for n, v in config.items())


def configs_of(space) -> List[Dict[str, object]]:
    """Every variant of a search space: a mapping of macro -> values (their product) or a
    sequence of mappings (those variants only)."""
    if isinstance(space, Mapping):
        names = list(space)
        values = []
        for name in names:
            options = space[name]
            options = [options] if isinstance(options, (str, int, float)) else list(options)
            if not options:
                raise ValueError(f"croktile.autotune: the space gives no value for {name}")
            values.append(options)
        configs = [dict(zip(names, combo)) for combo in itertools.product(*values)]
    else:
        configs = [dict(c) for c in space]
    if not configs:
        raise ValueError("croktile.autotune: the search space is empty")
    for config in configs:
        for name in config:
            if not (isinstance(name, str) and name.isidentifier()):
                raise ValueError(f"croktile.autotune: {name!r} is not a macro name")
    return configs


def first_line(message: str) -> str:
    """The line of a compiler's or a runtime check's message that says what failed."""
    lines = [l.strip() for l in str(message).splitlines() if l.strip()]
    for line in lines:
        if "error" in line.lower():
            return line
    return lines[0] if lines else type(message).__name__


class _Function:
    """A tuned __co__ function: called like the module's, it runs the variant chosen for
    the call's key."""

    def __init__(self, tuned: "Tuned", name: str):
        self._tuned, self.__name__ = tuned, name

    def __call__(self, *args, **kwargs):
        try:
            chosen = self._tuned._resolve(self.__name__, args, kwargs)
        except BuildError as exc:   # the failures under the caller's line, not the tuner's frames
            raise exc.with_traceback(None) from None
        return chosen(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<tuned __co__ function {self.__name__} of {os.path.basename(self._tuned.source)}>"


class Tuned:
    """What croktile.autotune returns: each __co__ function of the source is an attribute
    (``tuned.gemm(a, b)``); ``tuned.choice("gemm", a, b)`` says which variant runs for those
    arguments (tuning first if their key is new)."""

    def __init__(self, source: str, configs: List[Dict[str, object]], load_kwargs: dict, key: KeySpec,
                 timer: Optional[Callable], check: Optional[Callable], jobs: Optional[int], warmup: int,
                 reps: Optional[int]):
        self.source, self.configs = source, configs
        self._load_kwargs, self._key, self._timer, self._check = load_kwargs, key, timer, check
        self._jobs, self._warmup, self._reps = jobs or os.cpu_count() or 1, warmup, reps
        self._target = load_kwargs.get("target")
        self.cache_file = disk.cache_file(source, _flags(**{k: load_kwargs[k] for k in (
            "target", "profile", "options", "include_dirs", "defines")}), configs)
        self._modules: Dict[str, object] = {}     # label -> built module
        self._failed: Dict[str, str] = {}         # label -> why its build failed
        self._params: Dict[str, Params] = {}      # function -> parameters
        self._chosen: Dict[tuple, Callable] = {}  # (function, key) -> the chosen variant's function
        self._choices: Dict[tuple, Choice] = {}
        self._lock = threading.RLock()
        self._functions: Dict[str, _Function] = {}

    def __getattr__(self, name: str) -> _Function:
        if name.startswith("_"):
            raise AttributeError(name)
        function = self._functions.get(name)
        if function is None:
            function = self._functions[name] = _Function(self, name)
        return function

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._params))

    def __repr__(self) -> str:
        return f"<croktile.autotune of {self.source}: {len(self.configs)} variants>"

    def choice(self, function: str, *args, **kwargs) -> Choice:
        """The variant `function` runs for these arguments (tuned now if the key is new)."""
        self._resolve(function, args, kwargs)
        return self._choices[(function, self._key_of(function, args, kwargs))]

    def module(self, config: Mapping[str, object]):
        """The module of one variant (``tuned.module(choice.config)``): built, or taken from
        croktile.load's cache; its functions skip the per-call choice. Raises BuildError if
        that variant does not build."""
        config = dict(config)
        if config not in self.configs:
            raise ValueError(f"croktile.autotune: {label_of(config)} is not a variant of this search")
        module = self._module(self.configs[self.configs.index(config)])
        if module is None:
            raise BuildError(self._failed[label_of(config)])
        return module

    # -- choosing ---------------------------------------------------------------------

    def _resolve(self, function: str, args: tuple, kwargs: dict) -> Callable:
        key = self._key_of(function, args, kwargs)
        chosen = self._chosen.get((function, key))
        if chosen is not None:
            return chosen
        with self._lock:
            chosen = self._chosen.get((function, key))
            if chosen is None:
                device = disk.device_model(self._target, [*args, *kwargs.values()])
                choice = self._from_disk(function, key, device) or self._tune(function, key, device, args, kwargs)
                self._choices[(function, key)] = choice
                chosen = self._chosen[(function, key)] = getattr(self._modules[choice.label], function)
            return chosen

    def _key_of(self, function: str, args: tuple, kwargs: dict) -> str:
        if callable(self._key):
            return key_of([], function, args, kwargs, self._key)
        return key_of(self._params_of(function), function, args, kwargs, self._key)

    def functions(self) -> Dict[str, Params]:
        """Each host-callable function's parameters, (name, kind) in order: kind is an
        array's element type (f16) or a scalar's type (float, int, bool). From the disk's
        record of an earlier build, else from building the variants."""
        known = disk.read(self.cache_file).get("params")
        if not known:
            self._build_all()
            known = disk.read(self.cache_file).get("params", {})
        self._params.update({f: [tuple(p) for p in ps] for f, ps in known.items()})
        return dict(self._params)

    def _params_of(self, function: str) -> Params:
        params = self._params.get(function)
        if params is None:
            params = self.functions().get(function)
            if params is None:
                raise AttributeError(f"{os.path.basename(self.source)} has no host-callable __co__ function "
                                     f"'{function}' (it has: {', '.join(sorted(self._params)) or 'none'})")
        return params

    def _from_disk(self, function: str, key: str, device: str) -> Optional[Choice]:
        entry = disk.read(self.cache_file).get("choices", {}).get(device, {}).get(function, {}).get(key)
        if not entry or entry.get("config") not in self.configs:
            return None
        config = self.configs[self.configs.index(entry["config"])]
        if self._module(config) is None:   # built before, fails now (another compiler): tune again
            return None
        return Choice(function, key, device, config, entry.get("times", {}), entry.get("skipped", {}), True)

    def _tune(self, function: str, key: str, device: str, args: tuple, kwargs: dict) -> Choice:
        self._build_all()
        values = [*args, *(v for k, v in kwargs.items() if k != "stream")]
        timer = self._timer or timer_for(values, self._warmup, self._reps)
        times: Dict[str, float] = {}
        skipped = {label_of(c): f"failed to build: {first_line(self._failed[label_of(c)])}"
                   for c in self.configs if label_of(c) in self._failed}
        for config in self.configs:
            label = label_of(config)
            module = self._modules.get(label)
            if module is None:
                continue
            run = getattr(module, function, None)
            if run is None:   # a macro that removes the function
                skipped[label] = f"has no function '{function}'"
            else:
                self._run_and_time(run, config, timer, args, kwargs, times, skipped)
            if label in skipped:
                _warn(f"croktile.autotune: {function} [{key}]: variant {label} skipped: {skipped[label]}")
        if not times:
            raise BuildError(f"croktile.autotune: every variant of {function} failed for {key or 'this call'}:\n"
                             + "\n".join(f"  {label}: {why}" for label, why in skipped.items())) from None
        best = min(times, key=times.get)
        config = next(c for c in self.configs if label_of(c) == best)
        choice = Choice(function, key, device, config, times, skipped)

        def record(data: dict) -> None:
            data.setdefault("source", self.source)
            data.setdefault("space", self.configs)
            data.setdefault("choices", {}).setdefault(device, {}).setdefault(function, {})[key] = {
                "config": config, "defines": choice.defines, "times": times, "skipped": skipped}
        disk.update(self.cache_file, record)
        return choice

    def _run_and_time(self, run: Callable, config: dict, timer: Callable, args: tuple, kwargs: dict,
                      times: dict, skipped: dict) -> None:
        """One variant on the caller's arguments: its time into `times`, or why not into `skipped`."""
        label = label_of(config)
        try:   # the variant's own failures: a runtime check, a wrong result
            result = run(*args, **kwargs)
            if self._check is not None and self._check(result, *args, **kwargs) is False:
                raise _CheckFailed("the check returned False")
        except _CheckFailed as exc:
            skipped[label] = f"failed the check: {exc}"
            return
        except Exception as exc:
            skipped[label] = f"raised {type(exc).__name__}: {first_line(exc)}"
            return
        try:   # a croktile error while timing (a queued kernel's fault); a timer's own bugs propagate
            times[label] = float(timer(lambda: run(*args, **kwargs), dict(config)))
        except Error as exc:
            skipped[label] = f"raised {type(exc).__name__}: {first_line(exc)}"

    # -- building ---------------------------------------------------------------------

    def _module(self, config: Dict[str, object]):
        """The variant's module (built or taken from croktile.load's cache), or None if its
        build fails (the reason kept in _failed)."""
        label = label_of(config)
        if label not in self._modules and label not in self._failed:
            defines = dict(self._load_kwargs.get("defines") or {})
            defines.update(config)
            try:
                self._modules[label] = load(self.source, **{**self._load_kwargs, "defines": defines})
            except BuildError as exc:
                self._failed[label] = str(exc)
        return self._modules.get(label)

    def _build_all(self) -> None:
        """Builds every variant not built yet, `jobs` at once, warns about those that fail
        and records the functions' parameters on disk."""
        todo = [c for c in self.configs if label_of(c) not in self._modules and label_of(c) not in self._failed]
        if todo:
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(max_workers=min(self._jobs, len(todo))) as pool:
                list(pool.map(self._module, todo))
            for config in todo:
                label = label_of(config)
                if label in self._failed:
                    _warn(f"croktile.autotune: variant {label} skipped: failed to build: "
                          f"{first_line(self._failed[label])}")
        if not self._modules:
            raise BuildError(f"croktile.autotune: no variant of {self.source} builds:\n"
                             + "\n".join(f"  {label}: {first_line(why)}" for label, why in self._failed.items()))
        module = next(iter(self._modules.values()))
        params = {name: params_of(value) for name, value in vars(module).items()
                  if hasattr(value, "__nb_signature__") and not isinstance(value, type)}
        on_disk = {f: [tuple(p) for p in ps] for f, ps in disk.read(self.cache_file).get("params", {}).items()}
        if params != on_disk:
            disk.update(self.cache_file, lambda data: data.__setitem__("params", params))
        self._params.update(params)


class _CheckFailed(Exception):
    pass


def _warn(message: str) -> None:
    """A warning at the caller's line: the first frame outside this package."""
    here, level = os.path.dirname(os.path.abspath(__file__)), 2
    frame = sys._getframe(1)
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == here:
        frame, level = frame.f_back, level + 1
    warnings.warn(message, stacklevel=level)


def autotune(path: Union[str, os.PathLike], space: Union[Mapping[str, Iterable], Sequence[Mapping[str, object]]], *,
             key: KeySpec = None, timer: Optional[Callable] = None, check: Optional[Callable] = None,
             target: Optional[str] = None, profile: Optional[str] = None, options: Iterable[str] = (),
             include_dirs: Iterable[str] = (), defines: Optional[Mapping[str, object]] = None,
             jobs: Optional[int] = None, warmup: int = 2, reps: Optional[int] = None) -> Tuned:
    """A .co.cpp whose functions run the fastest of several builds per key.

    `space` maps macro names to the values to try (``{"BN": [128, 256], "STAGES": [3, 4]}``:
    four variants, each built with those ``-D`` defines) or lists the variants (a sequence of
    such dicts). `key` picks what a choice depends on: None (each array argument's shape and
    dtype), a list of parameter names, or a callable of the call's arguments. `timer(run,
    config) -> float` replaces the timing (`run()` calls the variant once); by default
    `warmup` calls and then the median of `reps` calls (as many as fit in 0.2 s if None),
    timed by CUDA events for PyTorch CUDA tensors, else by the clock. `check(result, *args,
    **kwargs)` may reject a variant's result (returning False or raising). `jobs` builds at
    once (all cores by default). The other arguments are croktile.load's, shared by every
    variant. Nothing is built until a function is first called."""
    source = os.path.abspath(os.fspath(path))
    if not os.path.isfile(source):
        raise BuildError(f"croktile.autotune: {path}: No such file")
    configs = configs_of(space)
    fixed = set(defines or ())
    for config in configs:
        both = fixed & set(config)
        if both:
            raise ValueError(f"croktile.autotune: {', '.join(sorted(both))} is both in `defines` and in the space")
    if key is not None and not callable(key):
        key = [key] if isinstance(key, (str, int)) else list(key)
    load_kwargs = {"target": target, "profile": profile, "options": list(options),
                   "include_dirs": [os.path.abspath(os.fspath(d)) for d in include_dirs],
                   "defines": dict(defines or {})}
    return Tuned(source, configs, load_kwargs, key, timer, check, jobs, warmup, reps)
