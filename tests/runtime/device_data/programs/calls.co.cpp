// Device-resident data and streams (issue #12) on every target: one host program that
// builds for cpu, factor, opencl (and compiles for cuda). main holds memory of its own
// in the target's device memory (a host array on cpu and factor, a cl_mem made in
// croktile::opencl::context() on opencl, cudaMalloc memory on cuda), calls __co__
// functions through their device form (device views, device_data, streams) and their
// host form (spanned views), and prints one line per case, "case: values", which
// test_calls.py compares between targets and with values computed in Python. A case
// that must fail prints the croktile::runtime_error's text, or "no error".
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

__cok__ {
  extern "C" void add_k(const int* a, const int* b, int* c, int n) {
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
  }
  extern "C" void scale_k(const float* x, float* y, int k, int n) {
    for (int i = 0; i < n; ++i) y[i] = x[i] * k;
  }
  extern "C" void bump(int* x, int n, int v) {
    for (int i = 0; i < n; ++i) x[i] += v;
  }
}

// symbolic shapes; one instance per row
__co__ s32 [a.span] add(s32 [M, N] a, s32 [M, N] b) {                     // CHECK: add
  s32 [a.span] out;
  parallel p by M {
    x = dma.copy a.chunkat(p, _) => local;
    y = dma.copy b.chunkat(p, _) => local;
    local s32 [x.span] z;
    call add_k(x.data, y.data, z, |x.span|);
    dma.copy z => out.chunkat(p, _);
  }
  return out;
}

__co__ f32 [a.span] scale(f32 [M, N] a, int k) {
  f32 [a.span] out;
  parallel p by 1 {
    x = dma.copy a => local;
    local f32 [x.span] y;
    call scale_k(x.data, y, k, |x.span|);
    dma.copy y => out;
  }
  return out;
}

// destination passing: the result lands in the caller's memory
__co__ void copy_into(f16 [M, N] src, f16 [M, N] dst) {                  // CHECK: copy_into
  parallel p by M {
    t = dma.copy src.chunkat(p, _) => local;
    dma.copy t => dst.chunkat(p, _);
  }
}

// an int result beside a write into a parameter
__co__ int bump_all(s32 [N] a, int v) {
  parallel p by 1 {
    t = dma.copy a => local;
    call bump(t.data, |t.span|, v);
    dma.copy t => a;
  }
  return N * v;
}

// 'global' parameters, a host-level copy between buffers, async copies, two launches
__co__ s32 [a.span] pipeline(global s32 [M, N] a, global s32 [M, N] b, int v) {
  s32 [a.span] mid;
  dma.copy a => mid;
  parallel p by M {
    x = dma.copy.async mid.chunkat(p, _) => local;
    y = dma.copy.async b.chunkat(p, _) => local;
    wait x, y;
    local s32 [x.span] z;
    call add_k(x.data, y.data, z, |x.span|);
    dma.copy z => mid.chunkat(p, _);
  }
  s32 [a.span] out;
  parallel q by 2 {
    t = dma.copy mid.chunkat(q, _) => local;
    call bump(t.data, |t.span|, v);
    dma.copy t => out.chunkat(q, _);
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

// Device memory the program allocates and frees itself (not croktile's), filled from
// `init`: what a framework or a hand-written GPU program holds.
template <typename T>
class program_memory {
  std::size_t count_;

 public:
#if defined(CL_SUCCESS)  // opencl: a buffer of croktile's context
  explicit program_memory(const std::vector<T>& init) : count_(init.size()) {
    cl_int err = CL_SUCCESS;
    mem_ = clCreateBuffer(ck::opencl::context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, count_ * sizeof(T),
                          const_cast<T*>(init.data()), &err);
    if (err != CL_SUCCESS) throw ck::runtime_error("clCreateBuffer failed");
  }
  ~program_memory() { clReleaseMemObject(mem_); }
  template <std::size_t Rank>
  ck::device_view<T, Rank> view(std::initializer_list<std::size_t> dims) const {
    return ck::make_device_view<Rank, T>(mem_, dims);
  }
  std::vector<T> read() const {
    std::vector<T> out(count_);
    ck::synchronize();
    if (clEnqueueReadBuffer(ck::opencl::queue(), mem_, CL_TRUE, 0, count_ * sizeof(T), out.data(), 0, nullptr,
                            nullptr) != CL_SUCCESS)
      throw ck::runtime_error("clEnqueueReadBuffer failed");
    return out;
  }

 private:
  cl_mem mem_;
#elif defined(__CUDACC__)  // cuda: cudaMalloc memory
  explicit program_memory(const std::vector<T>& init) : count_(init.size()) {
    cudaMalloc(&mem_, count_ * sizeof(T));
    cudaMemcpy(mem_, init.data(), count_ * sizeof(T), cudaMemcpyHostToDevice);
  }
  ~program_memory() { cudaFree(mem_); }
  template <std::size_t Rank>
  ck::device_view<T, Rank> view(std::initializer_list<std::size_t> dims) const {
    return ck::make_device_view<Rank>(mem_, dims);
  }
  std::vector<T> read() const {
    std::vector<T> out(count_);
    ck::synchronize();
    cudaMemcpy(out.data(), mem_, count_ * sizeof(T), cudaMemcpyDeviceToHost);
    return out;
  }

 private:
  T* mem_ = nullptr;
#else  // cpu, factor: device memory is host memory
  explicit program_memory(const std::vector<T>& init) : count_(init.size()), mem_(init) {}
  template <std::size_t Rank>
  ck::device_view<T, Rank> view(std::initializer_list<std::size_t> dims) const {
    return ck::make_device_view<Rank>(const_cast<T*>(mem_.data()), dims);
  }
  std::vector<T> read() const { return mem_; }

 private:
  std::vector<T> mem_;
#endif
};

template <typename R>
void print(const char* name, const R& values) {
  std::printf("%s:", name);
  for (auto v : values) std::printf(" %g", double(float(v)));
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

std::vector<int> ints(std::size_t n, int start, int step) {
  std::vector<int> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = start + int(i) * step;
  return v;
}

const std::vector<int> A = ints(24, -5, 3);   // 4 x 6
const std::vector<int> B = ints(24, 100, -7);

ck::spanned_view<int, 2> host(const std::vector<int>& v) {
  return ck::make_spanview<2>(const_cast<int*>(v.data()), {4, 6});
}

// Views of program memory in and out; to_device, make_device_data, to_host, copy_to_host.
void views() {
  program_memory<int> a(A), b(B);
  print("views_add", add(a.view<2>({4, 6}), b.view<2>({4, 6})).to_host());
  // the same memory seen as 3 x 8
  print("views_reshaped", add(a.view<2>({3, 8}), a.view<2>({3, 8})).to_host());

  std::vector<float> x(12);
  for (int i = 0; i < 12; ++i) x[i] = 0.5f * i - 2.0f;
  program_memory<float> fx(x);
  print("views_scale", scale(fx.view<2>({2, 6}), 3).to_host());

  auto da = ck::to_device(host(A));
  auto zeros = ck::make_device_data<int>(4, 6);
  print("make_device_data", zeros.to_host());
  std::vector<int> into(24, -1);
  add(da, zeros).copy_to_host(ck::make_spanview<2>(into.data(), {4, 6}));
  print("copy_to_host", into);
  auto r = add(da, zeros);
  std::printf("shape: %zu %zu rank %zu\n", r.shape(0), r.shape(1), r.rank());
  auto empty = scale(ck::make_device_data<float>(0, 6), 2);
  std::printf("empty: %zu %zu %zu\n", empty.shape(0), empty.shape(1), empty.to_host().element_count());
  std::vector<int> wrong(24);
  expect_error("copy_to_host_shape", [&] { r.copy_to_host(ck::make_spanview<2>(wrong.data(), {6, 4})); });
}

// Results passed on without host copies: device_data, its view(), temporaries.
void chains() {
  auto da = ck::to_device(host(A));
  const std::vector<int> zero(24, 0);
  auto db = ck::to_device(add(host(B), host(zero)));   // a spanned_data (the host form's result)
  auto r1 = add(da, db);                    // a + b
  auto r2 = add(r1, r1.view());             // 2a + 2b
  print("chain", add(add(r2, da), db.view()).to_host());   // 3a + 3b
  std::vector<float> x(8);
  for (int i = 0; i < 8; ++i) x[i] = 1.0f + i;
  print("chain_scale", scale(scale(ck::to_device(ck::make_spanview<2>(x.data(), {2, 4})), 2), -3).to_host());
}

// A void function writing into a destination view (f16), and an int result.
void destinations() {
  std::vector<ck::f16> src, dst(6, ck::f16(-1.0f));
  for (int i = 0; i < 6; ++i) src.push_back(ck::f16(i * 0.25f - 0.5f));
  program_memory<ck::f16> s(src), d(dst);
  copy_into(s.view<2>({2, 3}), d.view<2>({2, 3}));
  print("copy_into", d.read());
  auto made = ck::make_device_data<ck::f16>(3, 2);
  copy_into(ck::to_device(ck::make_spanview<2>(src.data(), {3, 2})), made);
  print("copy_into_data", made.to_host());

  program_memory<int> a(ints(5, 1, 1));
  const int n = bump_all(a.view<1>({5}), 10);
  std::printf("bump_all: %d\n", n);
  print("bump_all_memory", a.read());
}

// What the host form takes for a 'global' parameter: a view of device memory on cuda (used
// in place), of host memory elsewhere (cpu, factor: the same memory; opencl: copied in).
ck::spanned_view<int, 2> global_view(const program_memory<int>& device, const std::vector<int>& values) {
#if defined(__CUDACC__)
  (void)values;
  return ck::make_spanview<2>(device.view<2>({4, 6}).data(), {4, 6});
#else
  (void)device;
  return host(values);
#endif
}

// 'global' parameters: the host form and the device form give the same.
void globals() {
  program_memory<int> a(A), b(B);
  print("global_host", pipeline(global_view(a, A), global_view(b, B), 7));
  print("global_device", pipeline(a.view<2>({4, 6}), b.view<2>({4, 6}), 7).to_host());
  print("host_form", add(host(A), host(B)));
}

// Streams: an explicit argument, a guard, and an out-of-order queue.
void streams() {
  ck::unique_stream s;
  auto da = ck::to_device(host(A), s);
  auto db = ck::to_device(host(B), s);
  auto r = add(da, db, s);
  ck::synchronize(s);
  print("stream_arg", r.to_host());
  {
    ck::stream_guard guard(s);
    auto g = add(da, db);
    std::printf("stream_guard_current: %s\n", ck::stream().native() == s.native() ? "yes" : "no");
    std::printf("stream_guard_result: %s\n", g.stream().native() == s.native() ? "yes" : "no");
    print("stream_guard", g.to_host());
  }
  std::printf("stream_guard_restored: %s\n", ck::stream().native() == ck::stream(nullptr).native() ? "yes" : "no");

  // the same chain on an in-order and an out-of-order queue
  ck::unique_stream ooo(true);
  const std::pair<const char*, ck::stream> queues[] = {{"chain_in_order", s}, {"chain_out_of_order", ooo}};
  for (const auto& named : queues) {
    const ck::stream q = named.second;
    auto x = add(da, db, q);
    auto y = add(x, x, q);
    auto z = pipeline(y, da, 3, q);
    auto w = add(z, add(y, db, q), q);
    ck::synchronize(q);
    print(named.first, w.to_host());
  }
  ck::synchronize();
}

// Errors: shape mismatches (host and device form), device-side checks, bad views.
void errors() {
  std::vector<int> five(20, 1);
  expect_error("shape_host", [&] { add(host(A), ck::make_spanview<2>(five.data(), {4, 5})); });
  program_memory<int> a(A), b(five);
  expect_error("shape_device", [&] { add(a.view<2>({4, 6}), b.view<2>({4, 5})); });
  std::vector<ck::f16> halves(12, ck::f16(2.0f));
  program_memory<ck::f16> src(halves), dst(std::vector<ck::f16>(12, ck::f16(-1.0f)));
  expect_error("shape_destination", [&] { copy_into(src.view<2>({3, 4}), dst.view<2>({4, 3})); });
  expect_error("shape_sync", [] { ck::synchronize(); });
  print("shape_destination_memory", dst.read());

  std::vector<int> v = ints(8, 0, 1);
  expect_error("check_host", [&] { divided(ck::make_spanview<1>(v.data(), {8}), 2); });
  auto dv = ck::to_device(ck::make_spanview<1>(v.data(), {8}));
  expect_error("check_call", [&] { divided(dv, 2); });
  expect_error("check_sync", [] { ck::synchronize(); });
  expect_error("check_sync_again", [] { ck::synchronize(); });
  print("check_ok", divided(dv, 9).to_host());

#if defined(CL_SUCCESS)  // a cl_mem knows its size; a pointer does not
  expect_error("view_too_large", [&] { add(a.view<2>({5, 6}), a.view<2>({5, 6})); });
#endif
  expect_error("view_rank", [&] { a.view<2>({24}); });
  expect_error("view_rank_3", [&] { a.view<1>({2, 3, 4}); });
}

int main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  try {
    if (only.empty() || only == "views") views();
    if (only.empty() || only == "chains") chains();
    if (only.empty() || only == "destinations") destinations();
    if (only.empty() || only == "globals") globals();
    if (only.empty() || only == "streams") streams();
    if (only.empty() || only == "errors") errors();
  } catch (const std::exception& e) {
    std::printf("unexpected exception: %s\n", e.what());
    return 1;
  }
  return 0;
}
