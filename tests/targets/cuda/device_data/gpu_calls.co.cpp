// Device-resident data and streams on a GPU (issue #12). One host program that builds
// for cuda and for cpu: main calls __co__ functions on memory it holds itself (cudaMalloc,
// a memory pool of its own, managed memory; host vectors on cpu), chains results without
// host copies, writes into destinations, runs two streams at once, captures a chain in a
// CUDA graph and replays it, and makes checks fail. It prints one line per case,
// "case: text"; test_device_data_gpu.py compares the lines with values computed in
// Python and with the cpu build's. CUDA-only cases are under __CUDACC__.
//
//   gpu_calls             every case
//   gpu_calls --sanitize  leaves out what fails on purpose and the timing (compute-sanitizer runs)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

__device__ void add_rows(const int* a, const int* b, int* c, int n) {
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

__device__ void bump(int* x, int n, int v) {
  for (int i = 0; i < n; ++i) x[i] += v;
}

// A dependent chain of `iters` LCG steps: a kernel that runs as long as asked.
__device__ void spin(int* x, int iters) {
  unsigned v = (unsigned)x[0];
  for (int i = 0; i < iters; ++i) v = v * 1664525u + 1013904223u;
  x[0] = (int)v;
}

__co__ s32 [a.span] add(s32 [M, N] a, s32 [M, N] b) {                     // CHECK: add
  s32 [a.span] out;                                                          // CHECK: add result
  parallel p by M {
    x = dma.copy a.chunkat(p, _) => local;
    y = dma.copy b.chunkat(p, _) => local;
    local s32 [x.span] z;
    call add_rows(x.data, y.data, z, |x.span|);
    dma.copy z => out.chunkat(p, _);
  }
  return out;
}

// destination passing: the sum lands in the caller's memory
__co__ void add_into(s32 [M, N] a, s32 [M, N] b, s32 [M, N] dst) {        // CHECK: add_into
  parallel p by M {
    x = dma.copy a.chunkat(p, _) => local;
    y = dma.copy b.chunkat(p, _) => local;
    local s32 [x.span] z;
    call add_rows(x.data, y.data, z, |x.span|);
    dma.copy z => dst.chunkat(p, _);
  }
}

// one block per element, each running `iters` steps: few blocks, as long as asked
__co__ s32 [a.span] spin_each(s32 [K] a, int iters) {
  s32 [a.span] out;
  parallel p by K {
    t = dma.copy a.chunkat(p) => local;
    call spin(t.data, iters);
    dma.copy t => out.chunkat(p);
  }
  return out;
}

// a division in device code by a value of the instance: zero where p == base
__co__ s32 [a.span] divided(s32 [N] a, int base) {
  s32 [a.span] out;
  parallel p by 4 {
    t = dma.copy a.chunkat(p) => local;
    call bump(t.data, |t.span|, 12 / (p - base));                        // CHECK: device division
    dma.copy t => out.chunkat(p);
  }
  return out;
}

namespace ck = croktile;

#if defined(__CUDACC__)
void cuda_ok(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw ck::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}

// What another library holds: its own memory pool and its own (non-blocking) stream.
struct foreign_library {
  cudaMemPool_t pool = nullptr;
  cudaStream_t stream = nullptr;
  foreign_library() {
    int dev = 0;
    cuda_ok(cudaGetDevice(&dev), "cudaGetDevice");
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    cuda_ok(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate");
    cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  }
  ~foreign_library() {
    cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
    cudaMemPoolDestroy(pool);
  }
};
foreign_library& library() {
  static foreign_library lib;
  return lib;
}
#endif

// Where memory the program holds (not croktile's) comes from.
enum class source { cuda_malloc, foreign_pool, managed };

// Memory the program allocates, fills from `init` and frees itself: device memory on
// cuda (from `src`), a host vector on cpu, where device memory is host memory.
class program_memory {
 public:
  program_memory(const std::vector<int>& init, source src) : count_(init.size()), src_(src) {
#if defined(__CUDACC__)
    const std::size_t bytes = count_ * sizeof(int);
    if (src == source::cuda_malloc) {
      cuda_ok(cudaMalloc(&ptr_, bytes), "cudaMalloc");
      cuda_ok(cudaMemcpy(ptr_, init.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    } else if (src == source::foreign_pool) {
      cuda_ok(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&ptr_), bytes, library().pool, library().stream),
              "cudaMallocFromPoolAsync");
      cuda_ok(cudaMemcpyAsync(ptr_, init.data(), bytes, cudaMemcpyHostToDevice, library().stream), "cudaMemcpyAsync");
      cuda_ok(cudaStreamSynchronize(library().stream), "cudaStreamSynchronize");
    } else {
      cuda_ok(cudaMallocManaged(&ptr_, bytes), "cudaMallocManaged");
      std::memcpy(ptr_, init.data(), bytes);
    }
#else
    host_ = init;
    ptr_ = host_.data();
#endif
  }
  ~program_memory() {
#if defined(__CUDACC__)
    cudaDeviceSynchronize();
    if (src_ == source::foreign_pool) {
      cudaFreeAsync(ptr_, library().stream);
      cudaStreamSynchronize(library().stream);
    } else {
      cudaFree(ptr_);
    }
#endif
  }
  program_memory(const program_memory&) = delete;
  program_memory& operator=(const program_memory&) = delete;

  int* data() const { return ptr_; }
  ck::device_view<int, 2> view() const { return ck::make_device_view<2>(ptr_, {4, 6}); }
  // The contents once all work is done (managed memory: read in place by the host).
  std::vector<int> read() const {
    ck::synchronize();
    std::vector<int> out(count_);
#if defined(__CUDACC__)
    if (src_ != source::managed) {
      cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      cuda_ok(cudaMemcpy(out.data(), ptr_, count_ * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
      return out;
    }
    cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
#endif
    std::memcpy(out.data(), ptr_, count_ * sizeof(int));
    return out;
  }
  // Overwrites the contents, ordered after the work queued on `s`.
  void write(const std::vector<int>& values, ck::stream s) {
#if defined(__CUDACC__)
    cuda_ok(cudaMemcpyAsync(ptr_, values.data(), values.size() * sizeof(int), cudaMemcpyHostToDevice, s.native()),
            "cudaMemcpyAsync");
    cuda_ok(cudaStreamSynchronize(s.native()), "cudaStreamSynchronize");
#else
    (void)s;
    std::memcpy(ptr_, values.data(), values.size() * sizeof(int));
#endif
  }

 private:
  std::size_t count_;
  source src_;
  int* ptr_ = nullptr;
#if !defined(__CUDACC__)
  std::vector<int> host_;
#endif
};

template <typename R>
void print(const char* name, const R& values) {
  std::printf("%s:", name);
  for (auto v : values) std::printf(" %d", int(v));
  std::printf("\n");
}

template <typename F>
void expect_error(const char* name, F&& f) {
  try {
    f();
    std::printf("%s: no error\n", name);
  } catch (const ck::runtime_error& e) {
    std::printf("%s: %s\n", name, e.what());
  }
}

// Runs one part; an exception nobody expected is printed and the others still run.
template <typename F>
bool part(const char* name, F&& f) {
  try {
    f();
    return true;
  } catch (const std::exception& e) {
    std::printf("unexpected_exception_%s: %s\n", name, e.what());
    return false;
  }
}

std::vector<int> ints(std::size_t n, int start, int step) {
  std::vector<int> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = start + int(i) * step;
  return v;
}

const std::vector<int> A = ints(24, -5, 3);   // 4 x 6
const std::vector<int> B = ints(24, 100, -7);
const std::vector<int> A2 = ints(24, 40, -11);

ck::spanned_view<int, 2> host(const std::vector<int>& v) {
  return ck::make_spanview<2>(const_cast<int*>(v.data()), {4, 6});
}

// Views of memory from cudaMalloc, from another library's pool and stream, and managed
// memory: inputs used in place, results returned or written into a destination.
void views() {
  program_memory a(A, source::cuda_malloc), b(B, source::cuda_malloc);
  print("views_malloc", add(a.view(), b.view()).to_host());
  program_memory dst(std::vector<int>(24, -1), source::cuda_malloc);
  add_into(a.view(), b.view(), dst.view());
  print("into_malloc", dst.read());

  program_memory pa(A, source::foreign_pool), pb(B, source::foreign_pool);
#if defined(__CUDACC__)
  const ck::stream theirs(library().stream);   // the other library's stream
#else
  const ck::stream theirs;
#endif
  auto sum = add(pa.view(), pb.view(), theirs);
  ck::synchronize(theirs);
  print("views_pool", sum.to_host());

  program_memory ma(A, source::managed), mb(B, source::managed), mdst(std::vector<int>(24, -1), source::managed);
  print("views_managed", add(ma.view(), mb.view()).to_host());
  add_into(ma.view(), mb.view(), mdst.view());
  print("into_managed", mdst.read());
  print("host_form", add(host(A), host(B)));
}

// The chain of the graph cases, queued on the current stream: dst = 3a + 2b. Its
// intermediates are freed (stream-ordered) when it returns.
void chain(const program_memory& a, const program_memory& b, const program_memory& dst) {
  auto x = add(a.view(), b.view());   // a + b
  auto y = add(x, x.view());          // 2a + 2b
  add_into(y, a.view(), dst.view());  // 3a + 2b
}

// The same chain, the stream given as an argument to every call.
void chain_on(const program_memory& a, const program_memory& b, const program_memory& dst, ck::stream s) {
  auto x = add(a.view(), b.view(), s);
  auto y = add(x, x.view(), s);
  add_into(y, a.view(), dst.view(), s);
}

#if defined(__CUDACC__)
// The chain captured once in a CUDA graph on `s` (through a stream_guard, or the stream
// argument), then replayed: dst is reset before each replay, and `a` changed before the last.
void replay(const char* name, bool guard, program_memory& a, const program_memory& b, ck::stream s) {
  program_memory dst(std::vector<int>(24, -1), source::cuda_malloc);
  cudaGraph_t graph = nullptr;
  cuda_ok(cudaStreamBeginCapture(s.native(), cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
  try {
    if (guard) {
      ck::stream_guard g(s);
      chain(a, b, dst);
    } else {
      chain_on(a, b, dst, s);
    }
  } catch (...) {   // leave the stream usable for the cases after this one
    if (cudaStreamEndCapture(s.native(), &graph) == cudaSuccess && graph) cudaGraphDestroy(graph);
    throw;
  }
  cuda_ok(cudaStreamEndCapture(s.native(), &graph), "cudaStreamEndCapture");
  cudaGraphExec_t exec = nullptr;
  cuda_ok(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  const std::string prefix = std::string("graph_") + name + "_";
  std::printf("%scaptured: %s\n", prefix.c_str(), dst.read() == std::vector<int>(24, -1) ? "nothing ran" : "ran");
  for (int r = 1; r <= 4; ++r) {
    if (r == 4) a.write(A2, s);
    cuda_ok(cudaMemsetAsync(dst.data(), 0xff, 24 * sizeof(int), s.native()), "cudaMemsetAsync");
    cuda_ok(cudaGraphLaunch(exec, s.native()), "cudaGraphLaunch");
    ck::synchronize(s);
    print((prefix + (r == 4 ? std::string("changed") : std::to_string(r))).c_str(), dst.read());
  }
  a.write(A, s);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}
#endif

// Three chained calls with intermediates freed in between, eagerly; on cuda also captured
// in a CUDA graph and replayed.
void graphs() {
  program_memory a(A, source::cuda_malloc), b(B, source::cuda_malloc);
  ck::unique_stream s;
  program_memory eager(std::vector<int>(24, -1), source::cuda_malloc);
  {
    ck::stream_guard g(s);
    chain(a, b, eager);
  }
  ck::synchronize(s);
  print("graph_eager", eager.read());
  a.write(A2, s);
  chain_on(a, b, eager, s);
  ck::synchronize(s);
  print("graph_eager_changed", eager.read());
  a.write(A, s);
#if defined(__CUDACC__)
  part("graph_guard", [&] { replay("guard", true, a, b, s); });
  part("graph_arg", [&] { replay("arg", false, a, b, s); });
#endif
}

#if defined(__CUDACC__)
unsigned host_spin(unsigned v, int iters) {
  for (int i = 0; i < iters; ++i) v = v * 1664525u + 1013904223u;
  return v;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Two streams, a kernel of two blocks that runs tens of ms on each: queued on both, the
// wall time is close to one kernel's, not to the sum (printed: single s1, single s2, both).
void two_streams(bool timed) {
  ck::unique_stream s1, s2;
  const std::vector<int> seeds1 = {1, 2}, seeds2 = {3, 4};
  auto d1 = ck::to_device(ck::make_spanview<1>(const_cast<int*>(seeds1.data()), {2}), s1);
  auto d2 = ck::to_device(ck::make_spanview<1>(const_cast<int*>(seeds2.data()), {2}), s2);
  int iters = 1000;
  if (timed) {   // calibrate to about 40 ms a kernel
    spin_each(d1, iters, s1);
    ck::synchronize(s1);
    const int probe = 1 << 20;
    auto t0 = std::chrono::steady_clock::now();
    spin_each(d1, probe, s1);
    ck::synchronize(s1);
    const double ms = ms_since(t0);
    iters = int(std::min(double(1 << 30), probe * 40.0 / std::max(ms, 0.01)));
  }
  double single1 = 1e30, single2 = 1e30, both = 1e30;
  bool right = true;
  for (int rep = 0; rep < (timed ? 3 : 1); ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    auto r1 = spin_each(d1, iters, s1);
    ck::synchronize(s1);
    single1 = std::min(single1, ms_since(t0));
    t0 = std::chrono::steady_clock::now();
    auto r2 = spin_each(d2, iters, s2);
    ck::synchronize(s2);
    single2 = std::min(single2, ms_since(t0));
    t0 = std::chrono::steady_clock::now();
    auto q1 = spin_each(d1, iters, s1);
    auto q2 = spin_each(d2, iters, s2);
    ck::synchronize(s1);
    ck::synchronize(s2);
    both = std::min(both, ms_since(t0));
    const auto h1 = q1.to_host(), h2 = q2.to_host(), g1 = r1.to_host(), g2 = r2.to_host();
    for (int i = 0; i < 2; ++i)
      right = right && unsigned(h1.data()[i]) == host_spin(unsigned(seeds1[i]), iters) &&
              unsigned(h2.data()[i]) == host_spin(unsigned(seeds2[i]), iters) && g1.data()[i] == h1.data()[i] &&
              g2.data()[i] == h2.data()[i];
  }
  std::printf("two_streams_results: %s\n", right ? "ok" : "wrong");
  if (timed) std::printf("two_streams_ms: %.3f %.3f %.3f iters %d\n", single1, single2, both, iters);
}

// Pointers whose kind the types cannot tell: a device view over host memory, the host
// form given device memory. The error names the argument; nothing is queued.
void pointer_kinds() {
  std::vector<int> on_host(A);
  program_memory b(B, source::cuda_malloc);
  const auto host_view = ck::make_device_view<2>(on_host.data(), {4, 6});
  expect_error("host_pointer_a", [&] { add(host_view, b.view()); });
  expect_error("host_pointer_b", [&] { add(b.view(), host_view); });
  expect_error("host_pointer_dst", [&] { add_into(b.view(), b.view(), host_view); });
  expect_error("device_pointer_host_form", [&] { add(ck::make_spanview<2>(b.data(), {4, 6}), host(A)); });
  expect_error("pointer_sync", [] { ck::synchronize(); });
}
#endif

#if defined(__CUDACC__)
// The destination form of a function that returns data (cuda): the result goes into
// the caller's view; a view of another shape is an error naming 'out'.
void returning_into() {
  program_memory a(A, source::cuda_malloc), b(B, source::cuda_malloc);
  program_memory out(std::vector<int>(24, -1), source::cuda_malloc);
  add(a.view(), b.view(), out.view());
  print("returning_into", out.read());
  expect_error("returning_into_shape", [&] { add(a.view(), b.view(), ck::make_device_view<2>(out.data(), {6, 4})); });
}

// Arrays of device 1 while device 0 is current: the call runs on device 1 and device 0
// is current again after it; arrays of two devices in one call are an error.
void two_devices() {
  int count = 0;
  cuda_ok(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count < 2) {
    std::printf("two_devices: one device\n");
    return;
  }
  cuda_ok(cudaSetDevice(1), "cudaSetDevice");
  program_memory a(A, source::cuda_malloc), b(B, source::cuda_malloc), out(std::vector<int>(24, -1), source::cuda_malloc);
  cuda_ok(cudaSetDevice(0), "cudaSetDevice");
  program_memory b0(B, source::cuda_malloc);
  auto sum = add(a.view(), b.view());
  int current = -1;
  cuda_ok(cudaGetDevice(&current), "cudaGetDevice");
  cudaPointerAttributes attr{};
  cuda_ok(cudaPointerGetAttributes(&attr, sum.data()), "cudaPointerGetAttributes");
  std::printf("two_devices_where: result on device %d, current device %d\n", attr.device, current);
  print("two_devices_sum", sum.to_host());
  add(a.view(), b.view(), out.view());
  cuda_ok(cudaSetDevice(1), "cudaSetDevice");
  print("two_devices_into", out.read());
  cuda_ok(cudaSetDevice(0), "cudaSetDevice");
  expect_error("two_devices_mixed", [&] { add(a.view(), b0.view()); });
}
#endif

// A check failing in device code: at the call on cpu (synchronous), at the next
// synchronize on cuda (the call only queues work), once.
void device_check(bool failing) {
  std::vector<int> v = ints(8, 0, 1);
  auto dv = ck::to_device(ck::make_spanview<1>(v.data(), {8}));
  if (failing) {
    expect_error("check_host", [&] { divided(ck::make_spanview<1>(v.data(), {8}), 2); });
    ck::unique_stream s;
    expect_error("check_call", [&] { divided(dv, 2, s); });
    expect_error("check_sync", [&] { ck::synchronize(s); });
    expect_error("check_sync_again", [&] { ck::synchronize(s); });
  }
  print("check_ok", divided(dv, 9).to_host());
}

int main(int argc, char** argv) {
  const bool sanitize = argc > 1 && std::string(argv[1]) == "--sanitize";
  bool ok = part("views", views);
  ok = part("graphs", graphs) && ok;
  ok = part("device_check", [&] { device_check(!sanitize); }) && ok;
#if defined(__CUDACC__)
  ok = part("two_streams", [&] { two_streams(!sanitize); }) && ok;
  if (!sanitize) ok = part("pointer_kinds", pointer_kinds) && ok;
  ok = part("returning_into", returning_into) && ok;
  ok = part("two_devices", two_devices) && ok;
#endif
  return ok ? 0 : 1;
}
