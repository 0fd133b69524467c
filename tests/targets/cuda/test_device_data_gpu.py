"""Device-resident data and streams on a GPU (issue #12, "GPU tests").

``device_data/gpu_calls.co.cpp`` is built for cuda and for cpu and run; it prints one line
per case, which these tests compare with values computed here and with the cpu build's
lines. It covers: device views over memory from ``cudaMalloc``, from another library's
memory pool and stream (``cudaMallocFromPoolAsync`` on a non-blocking stream of its own)
and from ``cudaMallocManaged``; destination passing into that memory; chained calls
(``device_data`` into the next call); two ``unique_stream`` s whose long kernels overlap;
three chained calls captured in a CUDA graph (through a ``stream_guard`` and through the
stream argument, intermediates freed inside the capture) and replayed; a failed
device-side check reported at ``croktile::synchronize``, not at the call; host memory
where device memory is expected (and the reverse) named in the error; the spec's
host-array form. ``compute-sanitizer`` memcheck and racecheck run the program without
the cases that fail on purpose (``--sanitize``) and must find nothing.

Every test here needs an NVIDIA GPU and skips, saying why, where there is none.
"""
from __future__ import annotations

import concurrent.futures
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest

from helpers.croktilec import run_croktilec

pytestmark = [pytest.mark.device_data, pytest.mark.usefixtures("gpu")]

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "device_data" / "gpu_calls.co.cpp"
LINES = SOURCE.read_text().splitlines()

A = [-5 + 3 * i for i in range(24)]      # the program's 4 x 6 inputs
B = [100 - 7 * i for i in range(24)]
A2 = [40 - 11 * i for i in range(24)]    # what the graph cases change `a` to


def at(marker: str, text: str) -> str:
    """``gpu_calls.co.cpp:line:column:`` of ``text`` in the line that ends in ``// CHECK: marker``."""
    found = [i for i, line in enumerate(LINES, 1) if re.search(rf"// CHECK: {marker}$", line)]
    assert len(found) == 1, marker
    return f"gpu_calls.co.cpp:{found[0]}:{LINES[found[0] - 1].index(text) + 1}:"


def shown(values) -> str:
    return " ".join(str(int(v)) for v in values)


def chain(a) -> List[int]:
    """What the chain of the graph cases writes: (a + b) + (a + b) + a."""
    return [3 * x + 2 * y for x, y in zip(a, B)]


SUM = shown(x + y for x, y in zip(A, B))
DIVISION = f"{at('device division', '/ (p')} runtime check failed: division by zero"

EXPECTED = {
    "views_malloc": SUM,
    "into_malloc": SUM,
    "views_pool": SUM,
    "views_managed": SUM,
    "into_managed": SUM,
    "host_form": SUM,
    "graph_eager": shown(chain(A)),
    "graph_eager_changed": shown(chain(A2)),
    "check_ok": shown(i + int(12 / (i // 2 - 9)) for i in range(8)),   # C division truncates
}

# Lines only the cuda build prints, and lines whose text the target decides.
PER_TARGET = {"check_call", "check_sync"}


def parse(stdout: str) -> Dict[str, str]:
    """The program's lines by case (compute-sanitizer's own lines, '=========', left out)."""
    cases: Dict[str, str] = {}
    for line in stdout.splitlines():
        if line.startswith("========="):
            continue
        name, _, text = line.partition(": ")
        assert name not in cases, f"printed {name!r} twice:\n{stdout}"
        cases[name] = text
    return cases


def run(argv, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def executables(tmp_path_factory) -> Dict[str, Path]:
    """gpu_calls.co.cpp built for cuda and for cpu, in parallel."""
    work = tmp_path_factory.mktemp("device-gpu")

    def build(target: str) -> Path:
        exe = work / f"gpu_calls.{target}"
        res = run_croktilec("-t", target, SOURCE, "-o", exe, cwd=work, timeout=600)
        assert res.rc == 0, res
        return exe
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(["cuda", "cpu"], pool.map(build, ["cuda", "cpu"])))


@pytest.fixture(scope="module")
def runs(executables) -> Dict[str, subprocess.CompletedProcess]:
    """Each build run once."""
    return {target: run([exe]) for target, exe in executables.items()}


@pytest.fixture(scope="module")
def output(runs) -> Dict[str, Dict[str, str]]:
    """What each build prints, by case."""
    return {target: parse(got.stdout) for target, got in runs.items()}


@pytest.mark.parametrize("target", ["cuda", "cpu"])
def test_runs_through(runs, target):
    """Every part of the program ends normally: no exception it did not expect (each part
    prints one and the others still run, so the tests below show what else went wrong)."""
    got = runs[target]
    assert got.returncode == 0 and "unexpected_exception" not in got.stdout, \
        f"{target}: status {got.returncode}\n{got.stdout}{got.stderr}"


@pytest.mark.parametrize("target", ["cuda", "cpu"])
def test_results(output, target):
    """Views of cudaMalloc, foreign-pool and managed memory, destinations in that memory,
    the host-array form and the chain print what Python computes."""
    cases = output[target]
    wrong = {name: (cases.get(name), want) for name, want in EXPECTED.items() if cases.get(name) != want}
    assert not wrong, "\n".join(f"{name}: got {got!r}, expected {want!r}" for name, (got, want) in wrong.items())


def test_same_output_as_cpu(output):
    """Every line the cpu build prints, the cuda build prints the same, but where a failed
    device-side check is reported (test_device_check_reported_at_synchronize)."""
    cpu, cuda = output["cpu"], output["cuda"]
    assert {k: v for k, v in cuda.items() if k in cpu and k not in PER_TARGET} == \
        {k: v for k, v in cpu.items() if k not in PER_TARGET}


@pytest.mark.parametrize("how", ["guard", "arg"])
def test_graph_replay_gives_the_eager_results(output, how):
    """Three chained calls captured in a CUDA graph on a unique_stream (current through a
    stream_guard, or passed to every call), intermediates freed inside the capture, the
    last a void function writing into a destination: capturing runs nothing; each replay
    (destination reset in between) writes the eager result, and a replay after the input
    changed gives the eager result of the new input."""
    cases = output["cuda"]
    assert cases[f"graph_{how}_captured"] == "nothing ran"
    for replay in ("1", "2", "3"):
        assert cases[f"graph_{how}_{replay}"] == cases["graph_eager"] == shown(chain(A)), replay
    assert cases[f"graph_{how}_changed"] == cases["graph_eager_changed"] == shown(chain(A2))


def test_two_streams_overlap(output):
    """A kernel of two blocks running tens of ms, queued on each of two unique_streams: both
    finish in clearly less than the two one after the other (the calls do not wait, and
    nothing in them synchronises the device)."""
    cases = output["cuda"]
    assert cases["two_streams_results"] == "ok"
    single1, single2, both = (float(v) for v in cases["two_streams_ms"].split()[:3])
    assert min(single1, single2) > 10, f"kernels too short to measure overlap: {cases['two_streams_ms']}"
    assert both < 0.75 * (single1 + single2), f"no overlap: single {single1} + {single2} ms, both {both} ms"


@pytest.mark.parametrize("target", ["cuda", "cpu"])
def test_device_check_reported_at_synchronize(output, target):
    """A check failing in device code has the host form's text and .co.cpp location; cuda
    reports it at the next croktile::synchronize of the stream (the call only queues work),
    once; cpu, synchronous, at the call."""
    cases = output[target]
    assert cases["check_host"].endswith(DIVISION), cases["check_host"]
    at_call = target == "cpu"
    assert cases["check_call"] == (cases["check_host"] if at_call else "no error")
    assert cases["check_sync"] == ("no error" if at_call else cases["check_host"])
    assert cases["check_sync_again"] == "no error"


def test_memory_of_the_wrong_kind_is_named(output):
    """A device_view over host memory, and the host-array form given device memory: a
    croktile::runtime_error at the call naming the argument and the function (at its
    line); nothing is queued, so the next synchronize reports nothing."""
    cases = output["cuda"]
    for case, arg, fn in [("host_pointer_a", "a", "add"), ("host_pointer_b", "b", "add"),
                          ("host_pointer_dst", "dst", "add_into")]:
        assert f"{at(fn, '__co__')} argument '{arg}' of '{fn}' is host memory, but the parameter takes device " \
            "memory" in cases[case], cases[case]
    assert f"{at('add', '__co__')} argument 'a' of 'add' is device memory, but the parameter takes a host array" \
        in cases["device_pointer_host_form"], cases["device_pointer_host_form"]
    assert cases["pointer_sync"] == "no error"


def compute_sanitizer() -> str:
    """compute-sanitizer on PATH, in /usr/local/cuda/bin or beside nvcc; '' where none is."""
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    places = [Path("/usr/local/cuda/bin")]
    nvcc = shutil.which(os.environ.get("NVCC") or "nvcc")
    if nvcc:
        places.append(Path(nvcc).resolve().parent)
    return next((str(p / "compute-sanitizer") for p in places if (p / "compute-sanitizer").is_file()), "")


# What each tool prints when it found nothing.
CLEAN = {"memcheck": "ERROR SUMMARY: 0 errors", "racecheck": "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"}


@pytest.mark.parametrize("tool", sorted(CLEAN))
def test_compute_sanitizer_is_clean(executables, output, tool):
    """Everything but the cases that fail on purpose and the timing, under compute-sanitizer:
    no memory error, no shared-memory hazard, no failed CUDA call; the lines it prints are
    the ones of the plain run."""
    sanitizer = compute_sanitizer()
    if not sanitizer:
        pytest.skip("compute-sanitizer is not installed (PATH, /usr/local/cuda/bin)")
    got = run([sanitizer, "--tool", tool, "--error-exitcode", "99", executables["cuda"], "--sanitize"], timeout=900)
    assert got.returncode == 0, f"{tool}: status {got.returncode}\n{got.stdout[-4000:]}{got.stderr[-2000:]}"
    assert CLEAN[tool] in got.stdout, got.stdout[-2000:]
    cases = parse(got.stdout)
    assert "check_call" not in cases and "host_pointer_a" not in cases and "two_streams_ms" not in cases
    assert set(EXPECTED) | {"two_streams_results", "graph_guard_changed", "graph_arg_changed"} <= set(cases)
    assert cases == {k: output["cuda"].get(k) for k in cases}


def test_destination_form_of_a_returning_function(output):
    """add(a, b, out) writes a + b into the caller's view; a view of another shape is an
    error naming 'out' and the line of the declaration whose result it would hold."""
    cases = output["cuda"]
    assert cases["returning_into"] == SUM
    assert cases["returning_into_shape"].endswith(f"/{at('add result', 'out;')} argument 'out' of 'add' has shape "
                                                  "[6, 4], but the result's shape is [4, 6]")


def test_call_runs_on_the_device_of_its_arrays(output):
    """Device views of device 1 while device 0 is current: the call runs on device 1 (its
    result is memory of device 1), device 0 is current again after it; views of two
    devices in one call are an error naming the argument and the function's line."""
    cases = output["cuda"]
    if cases.get("two_devices") == "one device":
        pytest.skip("needs two CUDA GPUs")
    assert cases["two_devices_where"] == "result on device 1, current device 0"
    assert cases["two_devices_sum"] == cases["two_devices_into"] == SUM
    assert cases["two_devices_mixed"] == (f"{at('add', '__co__')} argument 'b' of 'add' is memory of device 0, but "
                                          "the call runs on device 1, which holds argument 'a'")
