"""The GPU architectures one cuda build is for: `-arch=sm_80,sm_90a` (a list) and
`-arch=native` (the GPUs of this machine), their nvcc flags, and the preprocessor
conditions that compile each architecture's kernels only where its code can run.

A build for several architectures is one translation unit compiled once per
architecture by nvcc (one `-gencode` each). The loader takes one image of it for a
device (a cubin the device runs, else the PTX of a plain architecture), so every image
must hold the kernels the dispatcher (dispatch.py) may pick there: a plain
architecture's kernels are compiled in its own pass and in every newer one (sm_80's
code, in the sm_90a image, runs on an H100 when sm_80 is forced), an `a` architecture's
in its own pass only (wgmma assembles for sm_90a alone).
"""
from __future__ import annotations

import re
import subprocess
from typing import List, Tuple

_ARCH = re.compile(r"sm_(\d+)(a?)")


class ArchError(Exception):
    """An `-arch` that cannot be built: the message, as `croktilec: error:` prints it."""


def is_list(given: str) -> bool:
    """Whether an `-arch` value is one of this module's forms (a list, or `native`); a
    single architecture goes to nvcc as given."""
    return "," in given or given.strip().lower() == "native"


def parse(given: str) -> List[str]:
    """The architectures `-arch=given` names, oldest first, each once: `sm_N` or `sm_Na`;
    `native` stands for the GPUs of this machine."""
    out: List[str] = []
    for word in given.split(","):
        word = word.strip().lower()
        if word == "native":
            out += native()
            continue
        if not word:
            raise ArchError(f"-arch={given}: an empty name in the list")
        if not _ARCH.fullmatch(word):
            raise ArchError(f"-arch={given}: '{word}' is not a GPU architecture (a list names real ones, "
                            "as in sm_80,sm_90a, or native)")
        out.append(word)
    archs = sorted(set(out), key=key)
    for a, b in zip(archs, archs[1:]):
        if number(a) == number(b):   # sm_90 and sm_90a: which cubin a 9.0 device loads is the driver's choice
            raise ArchError(f"-arch={given}: {a} and {b} are one GPU; list {b} alone (it runs what {a} runs there)")
    return archs


def key(arch: str) -> Tuple[int, bool]:
    return number(arch), arch.endswith("a")


def number(arch: str) -> int:
    m = _ARCH.fullmatch(arch)
    return int(m.group(1)) if m else 0


def native() -> List[str]:
    """The architectures of this machine's GPUs, from nvidia-smi; sm_90a for a 9.0 device
    (its tensor-core instructions are the `a` architecture's)."""
    argv = ["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except FileNotFoundError:
        raise ArchError("-arch=native: no GPU found (nvidia-smi is not on PATH)") from None
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ArchError(f"-arch=native: no GPU found (nvidia-smi: {exc})") from None
    if proc.returncode != 0:
        said = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
        raise ArchError(f"-arch=native: no GPU found (nvidia-smi exited with status {proc.returncode}"
                        + (f": {said[0]}" if said else "") + ")")
    archs = []
    for line in proc.stdout.splitlines():
        if not line.strip():
            continue
        m = re.fullmatch(r"\s*(\d+)\.(\d+)\s*", line)
        if not m:
            raise ArchError(f"-arch=native: nvidia-smi printed {line.strip()!r} for a compute capability")
        cc = int(m.group(1)) * 10 + int(m.group(2))
        archs.append(f"sm_{cc}" + ("a" if cc == 90 else ""))
    if not archs:
        raise ArchError("-arch=native: no GPU found (nvidia-smi lists none)")
    return archs


def gencode(arch: str) -> str:
    """nvcc's flag for one architecture of a list: its cubin, and for a plain one its PTX
    too, which the driver compiles for newer GPUs (and for forcing it on one)."""
    virtual = arch.replace("sm_", "compute_")
    code = arch if arch.endswith("a") else f"[{arch},{virtual}]"
    return f"-gencode=arch={virtual},code={code}"


def _pass_is(arch: str, op: str) -> str:
    """The device pass's condition: __CUDA_ARCH__ `op` the architecture's number, and for an
    `a` one its feature macro."""
    n = number(arch)
    cond = f"__CUDA_ARCH__ {op} {n * 10}"
    return f"({cond} && defined(__CUDA_ARCH_FEAT_SM{n}_ALL))" if arch.endswith("a") else f"({cond})"


def kernel_condition(arch: str) -> str:
    """Where `arch`'s kernel bodies are compiled: each device pass whose image may run that
    architecture's build (see the module's docstring); the host pass needs no body."""
    return f"defined(__CUDA_ARCH__) && {_pass_is(arch, '==' if arch.endswith('a') else '>=')}"


def pass_check(archs: List[str]) -> List[str]:
    """Lines that stop a device pass of an architecture the file was not generated for (its
    image would hold empty kernels), naming the flags that build it."""
    listed = " || ".join(_pass_is(a, "==") for a in archs)
    flags = " ".join(gencode(a) for a in archs)
    return [f"#if defined(__CUDA_ARCH__) && !({listed})",
            f'#error "generated by croktilec -arch={",".join(archs)}: compile with nvcc {flags}"',
            "#endif"]


def namespace(arch: str) -> str:
    """The namespace of one architecture's build of the functions."""
    return f"croktile_{arch}"
