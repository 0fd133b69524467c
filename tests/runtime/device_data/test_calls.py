"""``__co__`` calls on device-resident data and streams (issue #12), on every target.

``programs/calls.co.cpp`` holds memory of its own in the target's device memory (a host
array on cpu and factor, a ``cl_mem`` made in ``croktile::opencl::context()`` on opencl),
calls ``__co__`` functions through their device form (device views, ``device_data``
results passed on without host copies, temporaries, destination passing, an ``int``
result, ``global`` parameters, f16/f32/s32, symbolic shapes, host-level and async copies,
two launches in one function; ``unique_stream``, ``stream_guard``, the stream argument,
an out-of-order queue) and through the host form beside it, and prints one line per case.
The lines are compared with values computed here and between targets: the same text on
cpu, factor and opencl (PoCL), except where a failed device-side check surfaces, which
the design fixes per target: at the call on cpu and factor (synchronous), at
``croktile::synchronize`` on opencl and cuda (the call only queues work). cuda is
compiled with ``-t cuda -c`` (nvcc, no GPU needed) and run only where a GPU is.
"""
from __future__ import annotations

import concurrent.futures
import re
import shutil
import subprocess
from pathlib import Path
from typing import Callable, Dict, NamedTuple, Optional, Tuple

import pytest

from helpers.croktilec import Result, run_croktilec
from helpers.targets import TARGETS, build_for_targets

pytestmark = pytest.mark.device_data

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "programs" / "calls.co.cpp"
LINES = SOURCE.read_text().splitlines()

A = [-5 + 3 * i for i in range(24)]      # the program's 4 x 6 inputs
B = [100 - 7 * i for i in range(24)]
X = [0.5 * i - 2.0 for i in range(12)]
HALVES = [i * 0.25 - 0.5 for i in range(6)]


def at(marker: str, text: str) -> str:
    """``calls.co.cpp:line:column:`` of ``text`` in the line that ends in ``// CHECK: marker``."""
    found = [i for i, line in enumerate(LINES, 1) if re.search(rf"// CHECK: {marker}$", line)]
    assert len(found) == 1, marker
    return f"calls.co.cpp:{found[0]}:{LINES[found[0] - 1].index(text) + 1}:"


def plus(*arrays):
    return [sum(values) for values in zip(*arrays)]


def shown(values) -> str:
    """A list as the program prints it (%g)."""
    return " ".join(f"{float(v):g}" for v in values)


def pipeline(a, b, v):
    """What __co__ pipeline computes: a + b + v."""
    return [x + y + v for x, y in zip(a, b)]


def chain():
    """The chain of calls streams() queues on each queue."""
    x = plus(A, B)
    y = plus(x, x)
    z = pipeline(y, A, 3)
    return plus(z, plus(y, B))


EXPECTED = {
    "views_add": shown(plus(A, B)),
    "views_reshaped": shown(plus(A, A)),
    "views_scale": shown(3 * v for v in X),
    "make_device_data": shown([0] * 24),
    "copy_to_host": shown(A),
    "shape": "4 6 rank 2",
    "empty": "0 6 0",
    "copy_to_host_shape": "croktile::device_data::copy_to_host: the destination's shape differs from the data's",
    "chain": shown(plus(A, A, A, B, B, B)),
    "chain_scale": shown(-6.0 * (1 + i) for i in range(8)),
    "copy_into": shown(HALVES),
    "copy_into_data": shown(HALVES),
    "bump_all": "50",
    "bump_all_memory": "11 12 13 14 15",
    "global_host": shown(pipeline(A, B, 7)),
    "global_device": shown(pipeline(A, B, 7)),
    "host_form": shown(plus(A, B)),
    "stream_arg": shown(plus(A, B)),
    "stream_guard_current": "yes",
    "stream_guard_result": "yes",
    "stream_guard": shown(plus(A, B)),
    "stream_guard_restored": "yes",
    "chain_in_order": shown(chain()),
    "chain_out_of_order": shown(chain()),
    "shape_sync": "no error",
    "shape_destination_memory": shown([-1] * 12),
    "check_sync_again": "no error",
    "check_ok": shown(i + int(12 / (i // 2 - 9)) for i in range(8)),   # C division truncates
    "view_rank": "croktile::make_device_view: rank is 2 but 1 dimensions were given",
    "view_rank_3": "croktile::make_device_view: rank is 1 but 3 dimensions were given",
}


RUN_TARGETS = TARGETS + ["cuda"]   # cuda: compiled here, run only where a GPU is


class Program(NamedTuple):
    exe: Optional[Path]   # None where the target cannot run here
    why: str              # why it cannot


def gpu_present() -> bool:
    smi = shutil.which("nvidia-smi")
    return smi is not None and subprocess.run([smi, "-L"], capture_output=True).returncode == 0


def build_cuda(work: Path) -> Tuple[Result, Program]:
    """calls.co.cpp compiled for cuda (-c: nvcc, no GPU needed), and linked where a GPU can run it."""
    compiled = run_croktilec("-t", "cuda", "-c", SOURCE, "-o", work / "calls.cuda.o", cwd=work, timeout=300)
    if compiled.rc != 0:
        return compiled, Program(None, "the cuda build failed (test_cuda_compiles)")
    if not gpu_present():
        return compiled, Program(None, "no GPU here: compiled for cuda only (test_cuda_compiles)")
    exe = work / "calls.cuda"
    linked = run_croktilec("-t", "cuda", SOURCE, "-o", exe, cwd=work, timeout=300)
    return compiled, Program(exe if linked.rc == 0 else None, f"linking for cuda failed: {linked}")


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> Tuple[Dict[str, Program], Optional[Result]]:
    """calls.co.cpp for every target, in parallel once: the programs by target, and the
    cuda compilation's result (None without nvcc)."""
    work = tmp_path_factory.mktemp("device-calls")
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        cuda = pool.submit(build_cuda, work) if shutil.which("nvcc") else None
        exes, problem = build_for_targets(SOURCE, work)
        programs = {t: Program(exes.get(t), problem) for t in TARGETS}
        compiled, programs["cuda"] = cuda.result() if cuda else (None, Program(None, "nvcc is not installed"))
    return programs, compiled


@pytest.fixture(scope="module")
def output_of(builds) -> Callable[[str], Dict[str, str]]:
    """What a target's program prints, by case (run once), or a skip saying why it cannot run here."""
    programs, _ = builds
    printed: Dict[str, Dict[str, str]] = {}

    def get(target: str) -> Dict[str, str]:
        exe, why = programs[target]
        if exe is None:
            pytest.skip(why)
        if target not in printed:
            printed[target] = run(exe)
        return printed[target]
    return get


def run(exe: Path) -> Dict[str, str]:
    got = subprocess.run([str(exe)], cwd=str(exe.parent), capture_output=True, text=True, timeout=120)
    assert got.returncode == 0, f"{exe.name}: status {got.returncode}\n{got.stdout}{got.stderr}"
    cases: Dict[str, str] = {}
    for line in got.stdout.splitlines():
        name, _, text = line.partition(": ")
        assert name not in cases, f"{exe.name} printed {name!r} twice"
        cases[name] = text
    return cases


def test_cuda_compiles(builds):
    _, compiled = builds
    if compiled is None:
        pytest.skip("nvcc is not installed")
    assert compiled.rc == 0, compiled


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_results(output_of, target):
    """Every computed case prints what Python computes."""
    cases = output_of(target)
    wrong = {name: (cases.get(name), want) for name, want in EXPECTED.items() if cases.get(name) != want}
    assert not wrong, "\n".join(f"{name}: got {got!r}, expected {want!r}" for name, (got, want) in wrong.items())


@pytest.mark.parametrize("target", ["factor", "opencl", "cuda"])
def test_same_output_as_cpu(output_of, target):
    """The same program prints the same on every target, but where a failed device-side check
    is reported (test_device_check_reported) and checks only a cl_mem allows."""
    cpu = output_of("cpu")
    other = output_of(target)
    per_target = {"check_call", "check_sync", "view_too_large"}
    assert {k: v for k, v in other.items() if k not in per_target} == \
        {k: v for k, v in cpu.items() if k not in per_target}


SHAPE_MESSAGE = "runtime check failed: dimension 1 of 'b' is 5, but the declared shape needs 6"


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_shape_errors(output_of, target):
    """A shape mismatch in the device form is the host form's croktile::runtime_error (at the
    column of the dimension's name in the parameter's shape), raised at the call before
    anything is queued: a destination keeps its values and the next synchronize has nothing
    to report."""
    cases = output_of(target)
    assert cases["shape_host"].endswith(f"{at('add', 'N] b')} {SHAPE_MESSAGE}"), cases["shape_host"]
    assert cases["shape_device"] == cases["shape_host"]
    assert cases["shape_destination"].endswith(
        f"{at('copy_into', 'M, N] dst')} runtime check failed: dimension 0 of 'dst' is 4, but the declared shape needs 3")
    assert cases["shape_sync"] == "no error"
    assert cases["shape_destination_memory"] == shown([-1] * 12)


DIVISION = f"{at('device division', '/ (p')} runtime check failed: division by zero"


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_device_check_reported(output_of, target):
    """A check failing in device code has the host form's text; cpu and factor report it at
    the call, opencl and cuda at the next synchronize (once: the one after it is clean)."""
    cases = output_of(target)
    assert cases["check_host"].endswith(DIVISION), cases["check_host"]
    at_call = target in ("cpu", "factor")   # synchronous targets
    assert cases["check_call"] == (cases["check_host"] if at_call else "no error")
    assert cases["check_sync"] == ("no error" if at_call else cases["check_host"])
    assert cases["check_sync_again"] == "no error"


def test_opencl_view_larger_than_buffer(output_of):
    """A cl_mem knows its size: a view that needs more is refused at the call, naming the
    argument, the function and its line."""
    cases = output_of("opencl")
    assert cases["view_too_large"].endswith(
        f"{at('add', '__co__')} argument 'a' of 'add' is a buffer of 96 bytes, but its view needs 120"), \
        cases["view_too_large"]
