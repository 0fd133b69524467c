"""croktile.load on the cuda target with PyTorch (and CuPy where installed): CUDA tensors in
and out without copies, on the caller's current stream, results equal to the cpu
target's. Skipped without a CUDA GPU, PyTorch built with CUDA, or nvcc."""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

import croktile

# a RuntimeWarning (nanobind's "type already registered" when two modules share a class) fails
pytestmark = [pytest.mark.python, pytest.mark.filterwarnings("error::RuntimeWarning")]

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU (or PyTorch without CUDA)", allow_module_level=True)
if shutil.which(os.environ.get("NVCC", "nvcc")) is None:
    pytest.skip("nvcc not found", allow_module_level=True)

OPS = Path(__file__).resolve().parent / "kernels" / "ops.co.cpp"


@pytest.fixture(scope="module")
def gpu():
    return croktile.load(OPS, target="cuda")


@pytest.fixture(scope="module")
def cpu():
    return croktile.load(OPS, target="cpu")


def _cuda(a: np.ndarray):
    return torch.from_numpy(a).cuda()


def test_cuda_tensors_in_and_out(gpu, cpu):
    rng = np.random.default_rng(3)
    a = rng.integers(-100, 100, (64, 96), dtype=np.int32)
    b = rng.integers(-100, 100, (64, 96), dtype=np.int32)
    out = gpu.add(_cuda(a), _cuda(b))
    assert out.__dlpack_device__()[0] == 2   # kDLCUDA
    t = torch.from_dlpack(out)
    assert t.is_cuda and t.dtype == torch.int32 and tuple(t.shape) == (64, 96)
    np.testing.assert_array_equal(t.cpu().numpy(), cpu.add(a, b))
    # taken without a copy: a second consumer sees the same memory
    assert torch.from_dlpack(out).data_ptr() == t.data_ptr()


def test_device_result_object(gpu, cpu):
    a = np.arange(6 * 10, dtype=np.int32).reshape(6, 10)
    out = gpu.add(_cuda(a), _cuda(a))
    assert type(out).__name__ == "DeviceArray" and out.shape == (6, 10)
    host = out.to_numpy()    # an explicit copy to host memory, after the call's stream
    assert isinstance(host, np.ndarray) and host.dtype == np.int32
    np.testing.assert_array_equal(host, cpu.add(a, a))
    # a consumer on another stream than the call's gets finished data (DLPack's stream argument)
    s = torch.cuda.Stream()
    big = torch.ones(2048, 4096, dtype=torch.int32, device="cuda")
    with torch.cuda.stream(s):
        res = gpu.add(big, big)
    t = torch.from_dlpack(res)   # consumer: the default stream
    assert int(t.sum().item()) == 2 * 2048 * 4096


def test_host_arrays_on_the_cuda_target_are_copied_in_and_out(gpu, cpu):
    x = np.linspace(-1, 1, 8 * 16, dtype=np.float32).reshape(8, 16)
    host = gpu.axpb(x, 1.5, 2)
    assert isinstance(host, np.ndarray)
    np.testing.assert_allclose(host, cpu.axpb(x, 1.5, 2), rtol=1e-6)


def test_inputs_are_used_in_place(gpu):
    a = torch.arange(10, dtype=torch.int32, device="cuda")
    ptr = a.data_ptr()
    assert gpu.bump_all(a, 3) == 30
    torch.cuda.synchronize()
    assert a.data_ptr() == ptr
    assert a.cpu().tolist() == [i + 3 for i in range(10)]
    src = torch.rand(4, 8, device="cuda").half()
    dst = torch.zeros(4, 8, device="cuda", dtype=torch.float16)
    dst_ptr = dst.data_ptr()
    assert gpu.copy_into(src, dst) is None
    torch.cuda.synchronize()
    assert dst.data_ptr() == dst_ptr and torch.equal(dst, src)


def test_current_stream_is_used(gpu):
    a = torch.ones(256, 512, dtype=torch.int32, device="cuda")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        out = gpu.add(a, a)
        t = torch.from_dlpack(out)
        total = int(t.sum().item())   # ordered after the kernel on s
    s.synchronize()
    assert total == 2 * 256 * 512
    # an explicit stream
    out = gpu.add(a, a, stream=s)
    s.synchronize()
    assert int(torch.from_dlpack(out).sum().item()) == 2 * 256 * 512


def test_device_path_is_faster_than_host_path(gpu):
    n = 4096
    a = torch.ones(n, n, dtype=torch.int32, device="cuda")
    ha = a.cpu().numpy()
    gpu.add(a, a)
    gpu.add(ha, ha)
    torch.cuda.synchronize()

    def timed(fn, reps=5):
        best = float("inf")
        for _ in range(reps):
            t = time.perf_counter()
            fn()
            torch.cuda.synchronize()
            best = min(best, time.perf_counter() - t)
        return best
    device = timed(lambda: gpu.add(a, a))
    host = timed(lambda: gpu.add(ha, ha))   # 2 x 64 MiB in, 64 MiB out over PCIe
    assert device < host / 2, (device, host)


def test_errors(gpu):
    a = torch.ones(4, 4, dtype=torch.int32, device="cuda")
    with pytest.raises(croktile.ArgumentError, match=r"argument 'b' of 'add'.*got kDLCPU"):
        gpu.add(a, torch.ones(4, 4, dtype=torch.int32))
    with pytest.raises(croktile.ArgumentError, match=r"argument 'a' of 'add'.*int32 expected, got float32"):
        gpu.add(a.float(), a)
    with pytest.raises(croktile.ArgumentError, match=r"argument 'a' of 'add'.*compact row-major"):
        gpu.add(a.t(), a)
    with pytest.raises(croktile.Error, match=r"ops\.co\.cpp:\d+:\d+: runtime check failed: dimension 0 of 'x' "
                                             r"\(5\) is not divisible"):
        gpu.axpb(torch.ones(5, 2, device="cuda"), 1.0, 0)


def test_cupy_arrays():
    cp = pytest.importorskip("cupy")
    mod = croktile.load(OPS, target="cuda")
    a = cp.arange(12, dtype=cp.int32).reshape(3, 4)
    out = cp.from_dlpack(mod.add(a, a))
    assert out.data.ptr != a.data.ptr
    assert cp.asnumpy(out).tolist() == (2 * np.arange(12, dtype=np.int32).reshape(3, 4)).tolist()


# -- CUDA graphs: PyTorch's capture pattern (warm-up on a side stream, capture, replay on
#    new inputs), for the returning form and destination passing

def _warm_up(fn):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()
    torch.cuda.current_stream().wait_stream(side)


def test_graph_capture_of_the_returning_form(gpu, cpu):
    a = torch.zeros(64, 96, dtype=torch.int32, device="cuda")
    b = torch.zeros(64, 96, dtype=torch.int32, device="cuda")
    _warm_up(lambda: gpu.add(a, b))
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = gpu.add(a, b)
        t = torch.from_dlpack(out)   # same stream: no wait, no host synchronisation
    assert type(out).__name__ == "DeviceArray" and t.is_cuda
    rng = np.random.default_rng(5)
    for _ in range(3):
        ha = rng.integers(-100, 100, (64, 96), dtype=np.int32)
        hb = rng.integers(-100, 100, (64, 96), dtype=np.int32)
        a.copy_(torch.from_numpy(ha))
        b.copy_(torch.from_numpy(hb))
        g.replay()
        torch.cuda.synchronize()
        np.testing.assert_array_equal(t.cpu().numpy(), cpu.add(ha, hb))
        np.testing.assert_array_equal(t.cpu().numpy(), torch.from_dlpack(gpu.add(a, b)).cpu().numpy())


def test_graph_capture_of_destination_passing(gpu):
    src = torch.zeros(8, 16, dtype=torch.float16, device="cuda")
    dst = torch.zeros(8, 16, dtype=torch.float16, device="cuda")
    _warm_up(lambda: gpu.copy_into(src, dst))
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        gpu.copy_into(src, dst)
    for k in range(3):
        src.copy_(torch.rand(8, 16, device="cuda").half() + k)
        g.replay()
        torch.cuda.synchronize()
        assert torch.equal(dst, src)


def test_graph_of_chained_calls_replays_the_eager_chain(gpu):
    x0 = torch.zeros(32, 32, dtype=torch.int32, device="cuda")
    one = torch.ones(32, 32, dtype=torch.int32, device="cuda")

    def chain(x):
        for _ in range(100):
            x = torch.from_dlpack(gpu.add(x, one))   # each intermediate freed during capture
        return x

    _warm_up(lambda: chain(x0))
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = chain(x0)
    x0.copy_(torch.arange(32 * 32, dtype=torch.int32, device="cuda").reshape(32, 32))
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(y, chain(x0)) and torch.equal(y, x0 + 100)


def test_what_cannot_be_captured_raises(gpu):
    host = np.ones((4, 4), dtype=np.int32)
    a = torch.ones(4, 4, dtype=torch.int32, device="cuda")
    _warm_up(lambda: gpu.add(a, a))
    g = torch.cuda.CUDAGraph()
    with pytest.raises(croktile.Error, match=r"'add' with host arrays cannot be captured into a CUDA graph"):
        with torch.cuda.graph(g):
            gpu.add(host, host)
    # the same call outside a capture works, and so does a capture after it
    np.testing.assert_array_equal(gpu.add(host, host), 2 * host)
    g = torch.cuda.CUDAGraph()   # the failed capture's graph is ended (empty) and kept by the old one
    with torch.cuda.graph(g):
        t = torch.from_dlpack(gpu.add(a, a))
    g.replay()
    torch.cuda.synchronize()
    assert int(t.sum().item()) == 32


# -- several GPUs: a call runs on the device that holds its arrays

two_gpus = pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two CUDA GPUs")


@two_gpus
def test_call_runs_on_the_device_of_its_arrays(gpu, cpu):
    torch.cuda.set_device(0)
    a = np.arange(24 * 40, dtype=np.int32).reshape(24, 40)
    t = torch.from_numpy(a).to("cuda:1")
    out = gpu.add(t, t)
    assert out.__dlpack_device__() == (2, 1)
    r = torch.from_dlpack(out)
    assert r.device == torch.device("cuda:1")
    np.testing.assert_array_equal(r.cpu().numpy(), cpu.add(a, a))
    assert torch.cuda.current_device() == 0   # restored after the call
    # on the stream PyTorch uses for that device
    s = torch.cuda.Stream(device=1)
    with torch.cuda.stream(s):
        r2 = torch.from_dlpack(gpu.add(t, t))
    s.synchronize()
    assert torch.equal(r2, r)


@two_gpus
def test_arrays_on_two_devices_are_an_error(gpu):
    a = torch.ones(4, 4, dtype=torch.int32, device="cuda:0")
    b = torch.ones(4, 4, dtype=torch.int32, device="cuda:1")
    with pytest.raises(croktile.Error, match=r"ops\.co\.cpp:\d+:\d+: argument 'b' of 'add' is memory of device 1, "
                                             r"but the call runs on device 0, which holds argument 'a'"):
        gpu.add(a, b)
