// What a __co__ call costs beside its kernel (issue #22). bench/bench_calls.py builds this
// file twice: as a program (croktilec -t cuda), whose main prints the C++ figures below as
// "key value" lines, and as a Python module (croktile.load), whose functions it calls from
// Python against torch.add.
//
//   tiny_*     [4, 256] f32: host time to issue a call (batches of 256), and per call with a synchronize
//   stream_*   3 x 256 MiB: wall time of call + synchronize against the kernel alone
//              (croktile::cuda::timing()); host arrays against bytes / pinned bandwidth
//   staged_*   the staged add (dma.copy => shared) against the hand-written kernel
//
// Usage: call_costs [N [tiny|stream|staged]]   (N tiny calls per round; one part only)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

__device__ inline void add4(const float* a, const float* b, float* c) {
#pragma unroll
  for (int i = 0; i < 4; ++i) c[i] = a[i] + b[i];
}

__device__ inline void add16(const float* a, const float* b, float* c) {
#pragma unroll
  for (int i = 0; i < 16; ++i) c[i] = a[i] + b[i];
}


// the tiny add: [4, 256] f32, a block per row, a thread per 4 floats
__co__ f32 [4, 256] tiny_add(f32 [4, 256] a, f32 [4, 256] b) {
  f32 [a.span] c;
  parallel p by 4 {
    parallel t by 64 {
      x = dma.copy a.chunkat(p, t) => local;
      y = dma.copy b.chunkat(p, t) => local;
      local f32 [x.span] z;
      call add4(x.data, y.data, z);
      dma.copy z => c.chunkat(p, t);
    }
  }
  return c;
}

// the same into the caller's array (destination passing)
__co__ void tiny_add_into(f32 [4, 256] a, f32 [4, 256] b, f32 [4, 256] c) {
  parallel p by 4 {
    parallel t by 64 {
      x = dma.copy a.chunkat(p, t) => local;
      y = dma.copy b.chunkat(p, t) => local;
      local f32 [x.span] z;
      call add4(x.data, y.data, z);
      dma.copy z => c.chunkat(p, t);
    }
  }
}

// the streaming add: 256 MiB per array, a block per p, a thread per t, 16-byte moves
__co__ f32 [8192, 8, 256, 4] stream_add(f32 [8192, 8, 256, 4] a, f32 [8192, 8, 256, 4] b) {
  f32 [a.span] c;
  parallel p by 8192 {
    parallel t by 256 {
      with k in [8] {
        foreach k {
          x = dma.copy a.chunkat(p, k, t, _) => local;
          y = dma.copy b.chunkat(p, k, t, _) => local;
          local f32 [x.span] z;
          call add4(x.data, y.data, z);
          dma.copy z => c.chunkat(p, k, t, _);
        }
      }
    }
  }
  return c;
}

__co__ void stream_add_into(f32 [8192, 8, 256, 4] a, f32 [8192, 8, 256, 4] b, f32 [8192, 8, 256, 4] c) {
  parallel p by 8192 {
    parallel t by 256 {
      with k in [8] {
        foreach k {
          x = dma.copy a.chunkat(p, k, t, _) => local;
          y = dma.copy b.chunkat(p, k, t, _) => local;
          local f32 [x.span] z;
          call add4(x.data, y.data, z);
          dma.copy z => c.chunkat(p, k, t, _);
        }
      }
    }
  }
}

// the staged add: each block stages 16 KiB of a and of b in shared memory (dma.copy =>
// shared), each thread adds 16 floats of them; 256 MiB per array
__co__ void staged_add(f32 [16384, 256, 16] a, f32 [16384, 256, 16] b, f32 [16384, 256, 16] c) {
  parallel p by 16384 {
    x = dma.copy a.chunkat(p, _, _) => shared;
    y = dma.copy b.chunkat(p, _, _) => shared;
    parallel t by 256 {
      u = dma.copy x.data.chunkat(_, t, _) => local;
      v = dma.copy y.data.chunkat(_, t, _) => local;
      local f32 [u.span] z;
      call add16(u.data, v.data, z);
      dma.copy z => c.chunkat(p, t, _);
    }
  }
}

// The hand-written staged add: the same blocks, shared-memory tiles and per-thread work
// as staged_add, 16-byte moves.
__global__ void __launch_bounds__(256) staged_add_hand(const float* a, const float* b, float* c) {
  __shared__ __align__(16) float x[4096], y[4096];
  const long long base = 4096LL * blockIdx.x;
#pragma unroll
  for (int i = threadIdx.x; i < 1024; i += 256) {
    reinterpret_cast<float4*>(x)[i] = reinterpret_cast<const float4*>(a + base)[i];
    reinterpret_cast<float4*>(y)[i] = reinterpret_cast<const float4*>(b + base)[i];
  }
  __syncthreads();
  __align__(16) float u[16], v[16], z[16];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    reinterpret_cast<float4*>(u)[k] = reinterpret_cast<const float4*>(x + 16 * threadIdx.x)[k];
    reinterpret_cast<float4*>(v)[k] = reinterpret_cast<const float4*>(y + 16 * threadIdx.x)[k];
  }
  add16(u, v, z);
#pragma unroll
  for (int k = 0; k < 4; ++k)
    reinterpret_cast<float4*>(c + base + 16 * threadIdx.x)[k] = reinterpret_cast<const float4*>(z)[k];
}

// The floor of a C++ call: a raw launch of a kernel with the same grid and arguments
// that does nothing else.
__global__ void tiny_raw(const float* a, const float* b, float* c) {
  const int i = blockIdx.x * 256 + threadIdx.x * 4;
  if (a == nullptr) c[i] = b[i];   // never true: the launch is the whole cost
}

namespace ck = croktile;
using clock_type = std::chrono::steady_clock;

static void cuda_ok(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
    std::exit(1);
  }
}

static double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

static void report(const char* key, double value) { std::printf("%s %.6g\n", key, value); }

static void expect_sums(const std::vector<float>& c, const std::vector<float>& a, const std::vector<float>& b,
                        std::size_t stride, const char* what) {
  for (std::size_t i = 0; i < a.size(); i += stride)
    if (c[i] != a[i] + b[i]) {
      std::fprintf(stderr, "%s: element %zu is %g, expected %g\n", what, i, c[i], a[i] + b[i]);
      std::exit(1);
    }
}

template <std::size_t Rank>
static std::vector<float> host_copy(const ck::device_view<float, Rank>& v, ck::stream s) {
  std::vector<float> out(v.element_count());
  ck::synchronize(s);
  cuda_ok(cudaMemcpy(out.data(), v.data(), v.bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy");
  return out;
}

static std::vector<float> pattern(std::size_t n, int mod) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = float(i % mod);
  return v;
}

// Host time per call: the time to issue a batch of 256 back-to-back calls on one stream
// (fewer than the launch queue holds, so no call waits for the GPU), the synchronize
// after each batch untimed; the median batch of calls / 256. Also the time per call with
// the synchronize, N calls at once (what the GPU sustains: kernel and launch gaps).
static void tiny(int calls, ck::stream s) {
  const auto ha = pattern(4 * 256, 97), hb = pattern(4 * 256, 13);
  auto a = ck::to_device(ck::spanned_view<const float, 2>(ha.data(), {4, 256}), s);
  auto b = ck::to_device(ck::spanned_view<const float, 2>(hb.data(), {4, 256}), s);
  auto c = ck::device_data<float, 2>({4, 256}, s);
  for (int i = 0; i < 200; ++i) tiny_add(a, b, s), tiny_add_into(a, b, c, s);
  ck::synchronize(s);
  const int batch = 256, batches = std::max(5, calls / batch);
  std::vector<double> ret, into;
  for (int round = 0; round < batches; ++round) {
    auto t0 = clock_type::now();
    for (int i = 0; i < batch; ++i) tiny_add(a, b, s);
    ret.push_back(ms_since(t0) * 1e3 / batch);
    ck::synchronize(s);
    t0 = clock_type::now();
    for (int i = 0; i < batch; ++i) tiny_add_into(a, b, c, s);
    into.push_back(ms_since(t0) * 1e3 / batch);
    ck::synchronize(s);
  }
  std::vector<double> raw;
  for (int round = 0; round < batches; ++round) {
    auto t0 = clock_type::now();
    for (int i = 0; i < batch; ++i) tiny_raw<<<4, 64, 0, s.native()>>>(a.data(), b.data(), c.data());
    raw.push_back(ms_since(t0) * 1e3 / batch);
    ck::synchronize(s);
  }
  auto t0 = clock_type::now();
  for (int i = 0; i < calls; ++i) tiny_add_into(a, b, c, s);
  ck::synchronize(s);
  const double sustained = ms_since(t0) * 1e3 / calls;
  expect_sums(host_copy(c.view(), s), ha, hb, 1, "tiny_add_into");
  expect_sums(host_copy(tiny_add(a, b, s).view(), s), ha, hb, 1, "tiny_add");
  report("cpp_tiny_return_us_per_call", median(ret));
  report("cpp_tiny_into_us_per_call", median(into));
  report("cpp_tiny_into_synchronized_us_per_call", sustained);
  report("cpp_raw_launch_us_per_call", median(raw));
  report("cpp_tiny_into_over_raw_launch", median(into) / median(raw));
}

// The streaming add on device data: call + synchronize against the kernel alone; and the
// host-array call against its bytes over the pinned-memory bandwidth.
static void streaming(ck::stream s) {
  const std::size_t n = 8192ull * 8 * 256 * 4, bytes = n * sizeof(float);
  auto ha = pattern(n, 1000), hb = pattern(n, 7);
  const ck::spanned_view<float, 4> va(ha.data(), {8192, 8, 256, 4}), vb(hb.data(), {8192, 8, 256, 4});
  auto a = ck::to_device(va, s);
  auto b = ck::to_device(vb, s);
  auto c = ck::device_data<float, 4>({8192, 8, 256, 4}, s);
  std::vector<double> kernel, wall_ret, wall_into;
  for (int r = 0; r < 21; ++r) {
    ck::cuda::timing().enabled = true;
    stream_add_into(a, b, c, s);
    kernel.push_back(ck::cuda::timing().last_ms);
    ck::cuda::timing().enabled = false;
    auto t0 = clock_type::now();
    stream_add_into(a, b, c, s);
    ck::synchronize(s);
    wall_into.push_back(ms_since(t0));
    t0 = clock_type::now();
    {
      auto r2 = stream_add(a, b, s);
      ck::synchronize(s);
      wall_ret.push_back(ms_since(t0));
    }
  }
  expect_sums(host_copy(c.view(), s), ha, hb, 9973, "stream_add_into");
  report("cpp_stream_kernel_ms", median(kernel));
  report("cpp_stream_into_ms", median(wall_into));
  report("cpp_stream_return_ms", median(wall_ret));
  report("cpp_stream_into_over_kernel", median(wall_into) / median(kernel));
  report("cpp_stream_return_over_kernel", median(wall_ret) / median(kernel));

  // pinned-memory copy bandwidth, both directions, same process
  void *pinned = nullptr, *dev = nullptr;
  cuda_ok(cudaMallocHost(&pinned, bytes), "cudaMallocHost");
  cuda_ok(cudaMalloc(&dev, bytes), "cudaMalloc");
  std::vector<double> h2d, d2h;
  for (int r = 0; r < 6; ++r) {
    auto t0 = clock_type::now();
    cuda_ok(cudaMemcpy(dev, pinned, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    if (r) h2d.push_back(ms_since(t0));
    t0 = clock_type::now();
    cuda_ok(cudaMemcpy(pinned, dev, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    if (r) d2h.push_back(ms_since(t0));
  }
  cudaFreeHost(pinned);
  cudaFree(dev);
  const double bus_ms = 2 * median(h2d) + median(d2h);  // two arrays in, one out
  std::vector<double> host;
  std::vector<float> out;
  for (int r = 0; r < 6; ++r) {
    auto t0 = clock_type::now();
    auto res = stream_add(va, vb);
    if (r) host.push_back(ms_since(t0));
    if (r == 5) out.assign(res.data(), res.data() + n);
  }
  expect_sums(out, ha, hb, 9973, "stream_add (host arrays)");
  report("pinned_h2d_GBps", bytes / median(h2d) / 1e6);
  report("pinned_d2h_GBps", bytes / median(d2h) / 1e6);
  report("cpp_stream_host_ms", median(host));
  report("cpp_stream_host_bus_ms", bus_ms);
  report("cpp_stream_host_over_bus", median(host) / bus_ms);
}

// The staged add against the hand-written kernel, alternating, kernel times from events.
static void staged(ck::stream s) {
  const std::size_t n = 16384ull * 256 * 16;
  const auto ha = pattern(n, 1000), hb = pattern(n, 7);
  auto a = ck::to_device(ck::spanned_view<const float, 3>(ha.data(), {16384, 256, 16}), s);
  auto b = ck::to_device(ck::spanned_view<const float, 3>(hb.data(), {16384, 256, 16}), s);
  auto c = ck::device_data<float, 3>({16384, 256, 16}, s);
  auto h = ck::device_data<float, 3>({16384, 256, 16}, s);
  cudaEvent_t e0, e1;
  cuda_ok(cudaEventCreate(&e0), "cudaEventCreate");
  cuda_ok(cudaEventCreate(&e1), "cudaEventCreate");
  std::vector<double> mine, hand;
  for (int r = 0; r < 31; ++r) {
    ck::cuda::timing().enabled = true;
    staged_add(a, b, c, s);
    ck::cuda::timing().enabled = false;
    if (r) mine.push_back(ck::cuda::timing().last_ms);
    cuda_ok(cudaEventRecord(e0, s.native()), "cudaEventRecord");
    staged_add_hand<<<16384, 256, 0, s.native()>>>(a.data(), b.data(), h.data());
    cuda_ok(cudaEventRecord(e1, s.native()), "cudaEventRecord");
    cuda_ok(cudaEventSynchronize(e1), "kernel");
    float ms = 0;
    cuda_ok(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
    if (r) hand.push_back(ms);
  }
  expect_sums(host_copy(c.view(), s), ha, hb, 997, "staged_add");
  expect_sums(host_copy(h.view(), s), ha, hb, 997, "staged_add_hand");
  report("staged_ms", median(mine));
  report("staged_hand_ms", median(hand));
  report("staged_hand_over_croktile", median(hand) / median(mine));
}

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 20000;
  const std::string only = argc > 2 ? argv[2] : "";
  ck::unique_stream s;
  if (only.empty() || only == "tiny") tiny(calls, s);
  if (only.empty() || only == "stream") streaming(s);
  if (only.empty() || only == "staged") staged(s);
  return 0;
}
