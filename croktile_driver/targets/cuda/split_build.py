"""The cuda target's build of a generated source in two halves at once.

nvcc compiles a source in one chain: its device pass (preprocessing, cicc, ptxas) and
then its host pass (cudafe++ over the whole file, the host compiler over what it
leaves), one after the other. A generated source is compiled instead as two jobs that
run at the same time and share nothing but the file:

- the device half: ``nvcc -fatbin -DCROKTILE_SPLIT_DEVICE``, the kernels' image;
- the host half: the host compiler itself (no cudafe++) with
  ``-DCROKTILE_SPLIT_HOST=<symbol>``: kernels have empty bodies there (kernel.py), a
  launch names its kernel (``CROKTILE_KERNEL``) and finds it in the image at run time
  (runtime/croktile_cuda_split.h);

then the image goes into the object beside the host code (an ``.incbin`` and ``ld -r``).
The object is what ``nvcc -c`` would give (it links the same way, with cudart).

The split is the default where the installed cudart has library loading (12.5 and later:
the launches by name use cudaLibraryLoadData, cudaFuncGetName and cudaLaunchKernel on
library kernels, as cuda_runtime_api.h documents them; its programs and the GPU test
suite ran so on an H200); ``CROKTILE_SPLIT_BUILD=0`` makes every compile one nvcc job.

Only sources the generator marked (``mark_splittable``) are split: the user's own C++
must be plain host C++ (no device code, no ``#include "..."`` that could hold some), and
the generated host code must call no runtime function that launches a kernel of its own.
Anything else, flags this module does not know among them, is one nvcc job as before;
so is ``-S`` output compiled by the user (the mark is a comment). The Python bindings
(plain host C++) go to nvcc's host compiler itself unless ``CROKTILE_SPLIT_BUILD=0``.
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple

MARK = "// croktilec: split build (the host half compiles without nvcc: targets/cuda/split_build.py)"

# in the user's C++: what the host compiler alone cannot take, or could read differently
_NOT_HOST_ONLY = re.compile(r"__global__|__device__|__shared__|__constant__|__managed__|__launch_bounds__|<<<|"
                            r"\b(?:threadIdx|blockIdx|blockDim|gridDim|__syncthreads|__CUDA_ARCH__|__CUDACC__|"
                            r"__NVCC__)\b|#\s*include\s*\"")
# runtime functions that launch a kernel of the runtime's (nvcc must compile the caller)
_RUNTIME_KERNELS = ("croktile::cuda::fill(",)
# the cudart that has context-independent libraries (cudaLibraryLoadData, cudaFuncGetName, ...)
MIN_CUDART = 12050


def mark_splittable(text: str, segments) -> str:
    """The generated source, with MARK as its second line where it may be split."""
    if any(_NOT_HOST_ONLY.search(seg.text) for seg in segments if seg.kind == "host"):
        return text
    if any(name in text for name in _RUNTIME_KERNELS):
        return text
    first, _, rest = text.partition("\n")
    return f"{first}\n{MARK}\n{rest}"


def is_marked(source: str) -> bool:
    try:
        with open(source, encoding="utf-8", errors="replace") as fh:
            head = [fh.readline() for _ in range(2)]
    except OSError:
        return False
    return len(head) == 2 and head[1].rstrip("\n") == MARK


@dataclass(frozen=True)
class CudaInstall:
    """What nvcc itself uses: its include directories and its host compiler."""
    includes: Tuple[str, ...]
    host_compiler: str
    cudart_version: int


@functools.lru_cache(maxsize=None)
def cuda_install(nvcc: str) -> Optional[CudaInstall]:
    """Read from `nvcc --dryrun` (its INCLUDES and SYSTEM_INCLUDES, and the compiler of
    its preprocessing step); None when nvcc does not say."""
    try:
        out = subprocess.run([nvcc, "--dryrun", "-E", "-x", "cu", os.devnull], capture_output=True, text=True,
                             timeout=60).stderr
    except (OSError, subprocess.SubprocessError):
        return None
    includes: List[str] = []
    compiler = None
    for line in out.splitlines():
        line = line[3:] if line.startswith("#$ ") else line
        for key in ("INCLUDES=", "SYSTEM_INCLUDES="):
            if line.startswith(key):
                includes += shlex.split(line[len(key):])
        words = line.split()
        if compiler is None and words and "-E" in words and "cicc" not in words[0] and "=" not in words[0]:
            compiler = words[0]
    version = 0
    dirs = [w for w in includes if not w.startswith("-")] + [w[2:] for w in includes if w.startswith("-I")]
    for d in dirs:
        try:
            with open(os.path.join(d, "cuda_runtime_api.h"), encoding="utf-8", errors="replace") as fh:
                m = re.search(r"#define\s+CUDART_VERSION\s+(\d+)", fh.read())
        except OSError:
            continue
        if m:
            version = int(m.group(1))
            break
    if not compiler or not version:
        return None
    return CudaInstall(tuple(includes), compiler, version)


@dataclass
class SplitPlan:
    device: List[str]
    host: List[str]
    fatbin: str
    host_object: str
    output: str
    symbol: str
    host_compiler: str
    depfile: Optional[str] = None
    device_depfile: Optional[str] = None
    host_depfile: Optional[str] = None

    @property
    def image_source(self) -> str:
        return os.path.splitext(self.fatbin)[0] + ".image.s"

    @property
    def image_object(self) -> str:
        return os.path.splitext(self.fatbin)[0] + ".image.o"

    def scratch(self) -> List[str]:
        """The files the build makes on the way (removed after it)."""
        return [f for f in (self.fatbin, self.host_object, self.image_source, self.image_object,
                             self.device_depfile, self.host_depfile) if f]


# nvcc flags for the device half only; for both; and those whose next word goes with them
_DEVICE_ONLY = re.compile(r"-gencode=.*|--generate-code=.*|-arch=.*|--gpu-architecture=.*|-code=.*|-Xptxas.*|"
                          r"--ptxas-options=.*|-lineinfo|--generate-line-info|-G|--device-debug|"
                          r"-?-use_fast_math|-maxrregcount=.*|--maxrregcount=.*|--expt-relaxed-constexpr|"
                          r"--expt-extended-lambda|--extended-lambda|-restrict|-Xcudafe.*|--diag-suppress=.*|"
                          r"-diag-suppress=.*|--threads=.*|-t\d+")
_BOTH = re.compile(r"-[IDU].+|-O\d?|-Os|-g|-std=.*|-w|--std=.*")
_WITH_VALUE = {"-I", "-D", "-U", "-isystem", "-iquote", "-include", "-arch", "-gencode", "-ccbin", "--compiler-bindir",
               "-Xcompiler", "-Xptxas", "-time", "-MF", "-MT", "-t", "--threads"}


@dataclass
class Flags:
    """An nvcc compile's words, sorted by which half takes them."""
    nvcc: str
    device: List[str]
    host: List[str]
    host_compiler: str
    install: CudaInstall
    output: Optional[str] = None
    dep_flag: Optional[str] = None
    depfile: Optional[str] = None
    time_file: Optional[str] = None


def sort_flags(argv: List[str], source: str) -> Optional[Flags]:
    """`argv` (``nvcc FLAGS -c SOURCE -o OBJECT``) sorted by half, or None where a flag is
    not known here (or nvcc does not say what it uses)."""
    if not argv or os.path.basename(argv[0]) != "nvcc":
        return None
    install = cuda_install(argv[0])
    if install is None:
        return None
    f = Flags(argv[0], [], [], install.host_compiler, install)
    words = argv[1:]
    i = 0
    while i < len(words):
        w = words[i]
        value = words[i + 1] if i + 1 < len(words) else None
        if w in _WITH_VALUE and value is None:
            return None
        if w == "-c" or w == source:
            i += 1
            continue
        if w == "-o":
            f.output = value
        elif w in ("-MD", "-MMD"):
            f.dep_flag = w
            i += 1
            continue
        elif w == "-MF":
            f.depfile = value
        elif w == "-time":
            f.time_file = value
        elif w in ("-ccbin", "--compiler-bindir"):
            f.host_compiler = value
            f.device += [w, value]
        elif w == "-Xcompiler":
            f.host += value.split(",")
            f.device += [w, value]
        elif w.startswith("-Xcompiler="):
            f.host += w[len("-Xcompiler="):].split(",")
            f.device.append(w)
        elif w == "-Werror=all-warnings":
            f.host.append("-Werror")
            f.device.append(w)
        elif w in ("-I", "-D", "-U", "-isystem", "-iquote", "-include"):
            f.host += [w, value]
            f.device += [w, value]
        elif w in ("-arch", "-gencode", "-Xptxas", "-t", "--threads"):
            f.device += [w, value]
        elif _DEVICE_ONLY.fullmatch(w):
            f.device.append(w)
            i += 1
            continue
        elif _BOTH.fullmatch(w):
            f.host.append(w)
            f.device.append(w)
            i += 1
            continue
        else:
            return None   # a flag this module does not know: nvcc builds it as one job
        i += 2
    return f if f.output else None


def host_only(argv: List[str], source: str) -> Optional[List[str]]:
    """The host compiler's command for an nvcc compile of plain host C++ (the Python
    bindings' source), or None where nvcc must do it."""
    f = sort_flags(argv, source)
    if f is None or os.environ.get("CROKTILE_SPLIT_BUILD") == "0":
        return None
    out = [f.host_compiler, "-x", "c++", *f.host, *f.install.includes, "-c", source, "-o", f.output]
    if f.dep_flag and f.depfile:
        out += [f.dep_flag, "-MF", f.depfile]
    return out


def plan(argv: List[str], source: str, workdir: str) -> Optional[SplitPlan]:
    """The two halves of `argv` (``nvcc FLAGS -c SOURCE -o OBJECT``), or None where it
    stays one job."""
    if not is_marked(source) or os.environ.get("CROKTILE_SPLIT_BUILD") == "0":
        return None
    f = sort_flags(argv, source)
    if f is None or f.install.cudart_version < MIN_CUDART:   # (context-independent libraries)
        return None
    tag = hashlib.sha1(f"{os.path.abspath(f.output)}\0{os.getpid()}\0{source}".encode("utf-8", "surrogateescape"))
    symbol = f"croktile_image_{tag.hexdigest()[:20]}"
    stem = os.path.join(workdir, tag.hexdigest()[:12])
    p = SplitPlan(device=[f.nvcc, *f.device], host=[], fatbin=stem + ".fatbin", host_object=stem + ".host.o",
                  output=f.output, symbol=symbol, host_compiler=f.host_compiler, depfile=f.depfile)
    p.device += ["-DCROKTILE_SPLIT_DEVICE", "-fatbin", source, "-o", p.fatbin]
    if f.time_file:
        p.device += ["-time", f.time_file]
    p.host = [f.host_compiler, "-x", "c++", *f.host, *f.install.includes, f"-DCROKTILE_SPLIT_HOST={symbol}",
              "-c", source, "-o", p.host_object]
    if f.dep_flag and f.depfile:
        p.device_depfile, p.host_depfile = stem + ".device.d", stem + ".host.d"
        p.device += [f.dep_flag, "-MF", p.device_depfile]
        p.host += [f.dep_flag, "-MF", p.host_depfile]
    return p


def image_assembly(symbol: str, fatbin: str) -> str:
    """An object's read-only data holding the file `fatbin` at the hidden symbol `symbol`."""
    quoted = fatbin.replace("\\", "\\\\").replace('"', '\\"')
    return "\n".join([
        '\t.section .rodata.croktile_image,"a",@progbits',
        "\t.balign 64",
        f"\t.globl {symbol}",
        f"\t.hidden {symbol}",
        f"\t.type {symbol}, @object",
        f"{symbol}:",
        f'\t.incbin "{quoted}"',
        f"\t.size {symbol}, . - {symbol}",
        '\t.section .note.GNU-stack,"",@progbits',
        ""])


def run(p: SplitPlan, env, show: Callable[[str], None], run_children, run_child) -> int:
    """Builds both halves at once, then the object; `show(text)` prints a half's messages
    (the device half's first; on an error, only the failing half's)."""
    with tempfile.TemporaryFile(dir=(env or {}).get("TMPDIR")) as dev_err, \
            tempfile.TemporaryFile(dir=(env or {}).get("TMPDIR")) as host_err:
        rc_dev, rc_host = run_children([p.device, p.host], env=env, stderrs=[dev_err, host_err])
        outputs = []
        for f in (dev_err, host_err):
            f.seek(0)
            outputs.append(f.read().decode("utf-8", "replace"))
    if rc_dev != 0:
        show(outputs[0])
        return rc_dev
    if rc_host != 0:
        show(outputs[1])
        return rc_host
    for text in outputs:
        show(text)
    with open(p.image_source, "w", encoding="utf-8", errors="surrogateescape") as fh:
        fh.write(image_assembly(p.symbol, p.fatbin))
    for argv in ([p.host_compiler, "-c", p.image_source, "-o", p.image_object],
                 [_linker(), "-r", p.host_object, p.image_object, "-o", p.output]):
        rc = run_child(argv, env=env)
        if rc != 0:
            return rc
    if p.depfile:
        _merge_depfiles(p)
    return 0


def _linker() -> str:
    return shutil.which("ld") or "ld"


def _merge_depfiles(p: SplitPlan) -> None:
    """The object's depfile: the rules of both halves (the driver reads every rule's files)."""
    with open(p.depfile, "w", encoding="utf-8", errors="surrogateescape") as out:
        for path in (p.host_depfile, p.device_depfile):
            with open(path, encoding="utf-8", errors="surrogateescape") as fh:
                text = fh.read()
            out.write(text if text.endswith("\n") else text + "\n")


def runner(source: str, fallback: Callable[..., int], remap: Callable[[str], str]) -> Callable[..., int]:
    """A job runner (jobs.Job.runner) for the compile of the generated `source`: split
    where plan() allows, else `fallback`."""
    from ...driver import interrupts

    def run_job(argv: List[str], env=None) -> int:
        workdir = (env or {}).get("TMPDIR") or os.path.dirname(os.path.abspath(source))
        p = plan(argv, source, workdir)
        if p is None:
            return fallback(argv, env=env)

        def show(text: str) -> None:
            if text:
                text = remap(text)
                sys.stderr.write(text if text.endswith("\n") else text + "\n")
                sys.stderr.flush()
        try:
            return run(p, env, show, interrupts.run_children, interrupts.run_child)
        finally:
            for f in p.scratch():
                if os.path.exists(f):
                    os.unlink(f)
    return run_job
