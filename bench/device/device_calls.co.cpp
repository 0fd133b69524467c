// What a __co__ call on device-resident data costs beside its kernel (issue #12);
// bench/bench_device.py builds and runs it and prints the table. Every number is
// printed as one line "key value" (times in ms unless the key says us).
//
// (a) c = a + b over 3 x 256 MiB f32 already in device memory, on a unique_stream:
//     host wall time of call + croktile::synchronize against CUDA events recorded on
//     the stream around the same call, and against the kernel alone
//     (croktile::cuda::timing()); the returning form (result from the pool, zero-filled)
//     and destination passing (a void function writing into a device view).
// (b) N back-to-back calls of a small kernel on one stream (default 10,000): wall time
//     per call; the GPU time per call, measured on calls queued behind a gate kernel so
//     that the GPU runs them back to back (host enqueue time per call measured at the
//     same time); and the same N calls captured once in a CUDA graph and replayed.
// (c) today's host-array call of (a): pageable host arrays in, a host array out.
//
// Usage: device_calls [N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

__device__ void add4(const float* a, const float* b, float* c) {
#pragma unroll
  for (int i = 0; i < 4; ++i) c[i] = a[i] + b[i];
}

// 256 MiB per array: a block per p, a thread per t, 16-byte moves
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

// 64 KiB per array: 16 blocks of 256 threads, one 16-byte move each
__co__ f32 [16, 256, 4] small_add(f32 [16, 256, 4] a, f32 [16, 256, 4] b) {
  f32 [a.span] c;
  parallel p by 16 {
    parallel t by 256 {
      x = dma.copy a.chunkat(p, t, _) => local;
      y = dma.copy b.chunkat(p, t, _) => local;
      local f32 [x.span] z;
      call add4(x.data, y.data, z);
      dma.copy z => c.chunkat(p, t, _);
    }
  }
  return c;
}

__co__ void small_add_into(f32 [16, 256, 4] a, f32 [16, 256, 4] b, f32 [16, 256, 4] c) {
  parallel p by 16 {
    parallel t by 256 {
      x = dma.copy a.chunkat(p, t, _) => local;
      y = dma.copy b.chunkat(p, t, _) => local;
      local f32 [x.span] z;
      call add4(x.data, y.data, z);
      dma.copy z => c.chunkat(p, t, _);
    }
  }
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

// A pair of events on one stream: the GPU time between two points of its queue.
class event_pair {
 public:
  event_pair() {
    cuda_ok(cudaEventCreate(&start_), "cudaEventCreate");
    cuda_ok(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~event_pair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  void start(ck::stream s) { cuda_ok(cudaEventRecord(start_, s.native()), "cudaEventRecord"); }
  void stop(ck::stream s) { cuda_ok(cudaEventRecord(stop_, s.native()), "cudaEventRecord"); }
  double ms() const {  // after a synchronize
    float ms = 0;
    cuda_ok(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// Holds the stream for `ns` nanoseconds, so that work queued behind it runs back to back.
__global__ void gate(unsigned long long ns) {
  unsigned long long t0, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - t0 < ns);
}

template <typename V>
static bool sums_right(const V& c, const std::vector<float>& a, const std::vector<float>& b, std::size_t stride) {
  for (std::size_t i = 0; i < a.size(); i += stride)
    if (c.data()[i] != a[i] + b[i]) return false;
  return true;
}

static std::vector<float> pattern(std::size_t n, int mod, float scale) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = float(i % mod) * scale;
  return v;
}

// (a) wall time of call + synchronize, the events around the call, the kernel alone.
template <typename Call>
static void time_device_call(const char* name, Call&& call, ck::stream s, int reps) {
  event_pair ev;
  std::vector<double> wall, events, kernel;
  for (int r = 0; r < 2; ++r) call();   // warm-up: module load, pool growth
  ck::synchronize(s);
  for (int r = 0; r < reps; ++r) {
    const auto t0 = clock_type::now();
    ev.start(s);
    call();
    ev.stop(s);
    ck::synchronize(s);
    wall.push_back(ms_since(t0));
    events.push_back(ev.ms());
  }
  ck::cuda::timing().enabled = true;   // each launch bracketed by events and waited for
  for (int r = 0; r < reps; ++r) {
    call();
    kernel.push_back(ck::cuda::timing().last_ms);
  }
  ck::cuda::timing().enabled = false;
  ck::synchronize(s);
  const std::string k(name);
  report((k + "_wall_ms").c_str(), median(wall));
  report((k + "_events_ms").c_str(), median(events));
  report((k + "_kernel_ms").c_str(), median(kernel));
  report((k + "_ratio").c_str(), median(wall) / median(events));
  report((k + "_wall_over_kernel").c_str(), median(wall) / median(kernel));
}

static void streaming(int reps) {
  const std::size_t n = 8192ull * 8 * 256 * 4;
  const auto a = pattern(n, 1000, 1.0f), b = pattern(n, 7, 1.0f);
  ck::unique_stream s;
  auto da = ck::to_device(ck::make_spanview<4>(const_cast<float*>(a.data()), {8192, 8, 256, 4}), s);
  auto db = ck::to_device(ck::make_spanview<4>(const_cast<float*>(b.data()), {8192, 8, 256, 4}), s);
  auto dc = ck::device_data<float, 4>(da.shape(), s);
  ck::synchronize(s);

  time_device_call("a_return", [&] { auto c = stream_add(da, db, s); }, s, reps);
  time_device_call("a_into", [&] { stream_add_into(da, db, dc, s); }, s, reps);
  const bool right = sums_right(stream_add(da, db, s).to_host(), a, b, 9973) && sums_right(dc.to_host(), a, b, 9973);
  report("a_bytes_moved_GB", 3.0 * n * sizeof(float) / 1e9);
  report("a_results_right", right ? 1 : 0);
}

// (c) the host-array form: copies in, kernel, copy out, on every call.
static void host_arrays(int reps) {
  const std::size_t n = 8192ull * 8 * 256 * 4;
  const auto a = pattern(n, 1000, 1.0f), b = pattern(n, 7, 1.0f);
  const auto va = ck::make_spanview<4>(const_cast<float*>(a.data()), {8192, 8, 256, 4});
  const auto vb = ck::make_spanview<4>(const_cast<float*>(b.data()), {8192, 8, 256, 4});
  bool right = sums_right(stream_add(va, vb), a, b, 9973);   // warm-up
  std::vector<double> wall, kernel;
  ck::cuda::timing().enabled = true;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = clock_type::now();
    auto c = stream_add(va, vb);
    wall.push_back(ms_since(t0));
    kernel.push_back(ck::cuda::timing().last_ms);
    if (r == reps - 1) right = right && sums_right(c, a, b, 9973);
  }
  ck::cuda::timing().enabled = false;
  report("c_wall_ms", median(wall));
  report("c_kernel_ms", median(kernel));
  report("c_wall_over_kernel", median(wall) / median(kernel));
  report("c_results_right", right ? 1 : 0);
}

// (b) for one form of the small call: eager wall time, gated GPU time, graph replay.
template <typename Call>
static void chain_of_calls(const char* name, Call&& call, ck::stream s, int calls) {
  const std::string k(name);
  for (int i = 0; i < 100; ++i) call();   // warm-up
  ck::synchronize(s);

  std::vector<double> wall;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = clock_type::now();
    for (int i = 0; i < calls; ++i) call();
    ck::synchronize(s);
    wall.push_back(ms_since(t0));
  }
  const double wall_us = median(wall) * 1e3 / calls;

  // Batches queued behind a gate: the events time the calls running back to back, the
  // host clock how long queueing them took. A batch whose queueing outlasted the gate
  // did not run back to back: counted in b_*_gate_overrun.
  const int batch = std::min(calls, 500);
  const double gate_ms = 50;
  event_pair ev;
  double gpu_ms = 0, enqueue_ms = 0;
  int timed_calls = 0, overruns = 0;
  while (timed_calls < calls) {
    const int m = std::min(batch, calls - timed_calls);
    gate<<<1, 1, 0, s.native()>>>((unsigned long long)(gate_ms * 1e6));
    cuda_ok(cudaGetLastError(), "gate launch");
    ev.start(s);
    const auto t0 = clock_type::now();
    for (int i = 0; i < m; ++i) call();
    const double queued = ms_since(t0);
    ev.stop(s);
    ck::synchronize(s);
    if (queued > 0.8 * gate_ms) ++overruns;
    gpu_ms += ev.ms();
    enqueue_ms += queued;
    timed_calls += m;
  }
  const double gpu_us = gpu_ms * 1e3 / calls;

  // The same calls captured once in a graph, then replayed.
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  auto t0 = clock_type::now();
  cuda_ok(cudaStreamBeginCapture(s.native(), cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
  for (int i = 0; i < calls; ++i) call();
  cuda_ok(cudaStreamEndCapture(s.native(), &graph), "cudaStreamEndCapture");
  const double capture_ms = ms_since(t0);
  t0 = clock_type::now();
  cuda_ok(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  const double instantiate_ms = ms_since(t0);
  cuda_ok(cudaGraphLaunch(exec, s.native()), "cudaGraphLaunch");   // warm-up (uploads the graph)
  ck::synchronize(s);
  std::vector<double> replay;
  for (int rep = 0; rep < 5; ++rep) {
    t0 = clock_type::now();
    cuda_ok(cudaGraphLaunch(exec, s.native()), "cudaGraphLaunch");
    ck::synchronize(s);
    replay.push_back(ms_since(t0));
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);

  report((k + "_wall_us_per_call").c_str(), wall_us);
  report((k + "_gpu_us_per_call").c_str(), gpu_us);
  report((k + "_enqueue_us_per_call").c_str(), enqueue_ms * 1e3 / calls);
  report((k + "_overhead_us_per_call").c_str(), wall_us - gpu_us);
  report((k + "_gate_overrun").c_str(), overruns);
  report((k + "_graph_us_per_call").c_str(), median(replay) * 1e3 / calls);
  report((k + "_graph_capture_ms").c_str(), capture_ms);
  report((k + "_graph_instantiate_ms").c_str(), instantiate_ms);
}

static void small_calls(int calls) {
  const std::size_t n = 16 * 256 * 4;
  const auto a = pattern(n, 100, 0.5f), b = pattern(n, 9, 2.0f);
  ck::unique_stream s;
  auto da = ck::to_device(ck::make_spanview<3>(const_cast<float*>(a.data()), {16, 256, 4}), s);
  auto db = ck::to_device(ck::make_spanview<3>(const_cast<float*>(b.data()), {16, 256, 4}), s);
  auto dc = ck::device_data<float, 3>(da.shape(), s);
  ck::synchronize(s);
  chain_of_calls("b_return", [&] { auto c = small_add(da, db, s); }, s, calls);
  chain_of_calls("b_into", [&] { small_add_into(da, db, dc, s); }, s, calls);
  const bool right = sums_right(small_add(da, db, s).to_host(), a, b, 1) && sums_right(dc.to_host(), a, b, 1);
  report("b_calls", calls);
  report("b_results_right", right ? 1 : 0);
}

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 10000;
  if (calls <= 0) {
    std::fprintf(stderr, "usage: device_calls [calls > 0]\n");
    return 2;
  }
  try {
    streaming(20);
    small_calls(calls);
    host_arrays(5);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "device_calls: %s\n", e.what());
    return 1;
  }
  return 0;
}
