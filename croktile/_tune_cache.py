"""Tuning choices on disk, shared by every process and by ``python -m croktile.tune``.

One JSON file per search (``cache_dir()/tune/<stem>-<digest>.json``; the digest covers the
source's path and content, the target, profile, options, include folders, fixed defines and
the search space), holding each function's parameters and, per device model and key, the
variant chosen with the times measured. Writes go through a file lock and a rename, so
processes tuning other keys at once keep each other's choices.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from typing import Optional

from croktile_driver.paths import cache_dir

from ._tune_keys import is_array


def cache_file(source: str, flags: list, configs: list) -> str:
    with open(source, "rb") as fh:
        content = hashlib.sha256(fh.read()).hexdigest()
    text = json.dumps(["croktile.autotune 1", source, content, flags, configs], sort_keys=True)
    digest = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    stem = os.path.basename(source).split(".", 1)[0]
    return os.path.join(cache_dir(), "tune", f"{stem}-{digest}.json")


def read(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def update(path: str, change) -> dict:
    """Applies `change` (a function that edits the file's dict in place) under the file's
    lock, on what is on disk now, and writes the result."""
    from croktile_driver.driver.filelock import file_lock
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with file_lock(path + ".lock"):
        data = read(path)
        change(data)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
        os.replace(tmp, path)
    return data


def device_model(target: Optional[str], values) -> str:
    """What a choice is valid for: the GPU's name when the arguments are CUDA arrays (or the
    target is cuda), else the CPU's model."""
    for value in values:
        name = _cuda_array_device(value)
        if name:
            return name
    if target == "cuda":
        name = _any_cuda_device()
        if name:
            return name
    return _cpu_model()


def _cuda_array_device(value) -> Optional[str]:
    if not is_array(value):
        return None
    device = getattr(value, "device", None)
    if getattr(device, "type", None) == "cuda":   # a PyTorch tensor
        import torch
        return torch.cuda.get_device_name(device)
    if type(value).__module__.startswith("cupy"):
        import cupy
        return _text(cupy.cuda.runtime.getDeviceProperties(value.device.id)["name"])
    return None


def _any_cuda_device() -> Optional[str]:
    """The current GPU's name through PyTorch or CuPy (host arrays on the cuda target)."""
    try:
        import torch
        if torch.cuda.is_available():
            return torch.cuda.get_device_name()
    except ImportError:
        pass
    try:
        import cupy
        return _text(cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"])
    except Exception:   # no CuPy, or no GPU it can see
        return None


def _text(name) -> str:
    return name.decode() if isinstance(name, bytes) else str(name)


@functools.lru_cache(maxsize=None)
def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.lower().startswith(("model name", "hardware", "uarch", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform
    return platform.processor() or platform.machine() or sys.platform
