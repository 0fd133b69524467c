// The fast instance of a kernel (toolchains/opencl_fast.py: every global buffer 16-byte
// aligned, none written overlapping another; restrict pointers, vector copies without
// address tests) and the generic one give the same results, on cpu and opencl alike:
// distinct arrays, an in-place call (c is a), parts of one array (sub-buffers on opencl),
// an in-place call through two parts at one place, and host arrays one element off
// alignment (host form). Two kernels: work-item copies through private arrays (a loop of
// run-time count around them), and work-group copies into shared tiles.
#include <cstdio>
#include <string>
#include <vector>

__cok__ {
  extern "C" void add4(const float* a, const float* b, float* c) {
    for (int i = 0; i < 4; ++i) c[i] = a[i] + b[i];
  }
  extern "C" void add4_at(const float* a, const float* b, float* c, int t) {
    for (int i = 0; i < 4; ++i) c[i] = a[t * 4 + i] + b[t * 4 + i];
  }
}

__co__ void add_into(f32 [M, N] a, f32 [M, N] b, f32 [M, N] c) {
  parallel p by M {
    parallel t by 64 {
      with k in [N / 256] {
        foreach k {
          x = dma.copy a.chunkat(p, k # t) => local;
          y = dma.copy b.chunkat(p, k # t) => local;
          local f32 [x.span] z;
          call add4(x.data, y.data, z);
          dma.copy z => c.chunkat(p, k # t);
        }
      }
    }
  }
}

__co__ void add_tiles(f32 [M, 256] a, f32 [M, 256] b, f32 [M, 256] c) {
  parallel p by M {
    ta = dma.copy a.chunkat(p, _) => shared;
    tb = dma.copy b.chunkat(p, _) => shared;
    parallel t by 64 {
      local f32 [1, 4] z;
      call add4_at(ta.data, tb.data, z, t);
      dma.copy z => c.chunkat(p, t);
    }
  }
}

namespace ck = croktile;

// One device array of the program's own, and views of parts of it (sub-buffers on opencl).
class memory {
 public:
  explicit memory(const std::vector<float>& init) : count_(init.size()) {
#if defined(CL_SUCCESS)
    cl_int err = CL_SUCCESS;
    mem_ = clCreateBuffer(ck::opencl::context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, count_ * sizeof(float),
                          const_cast<float*>(init.data()), &err);
    if (err != CL_SUCCESS) throw ck::runtime_error("clCreateBuffer failed");
#else
    mem_ = init;
#endif
  }
  ~memory() {
#if defined(CL_SUCCESS)
    for (cl_mem m : parts_) clReleaseMemObject(m);
    clReleaseMemObject(mem_);
#endif
  }
  memory(const memory&) = delete;
  memory& operator=(const memory&) = delete;

  // [rows, cols] at element `at`: on opencl a sub-buffer where `part` or at != 0
  ck::device_view<float, 2> view(std::size_t at, std::size_t rows, std::size_t cols, bool part) {
#if defined(CL_SUCCESS)
    cl_mem m = mem_;
    if (part || at != 0) {
      const cl_buffer_region region{at * sizeof(float), rows * cols * sizeof(float)};
      cl_int err = CL_SUCCESS;
      m = clCreateSubBuffer(mem_, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
      if (err != CL_SUCCESS) throw ck::runtime_error("clCreateSubBuffer failed: " + std::to_string(err));
      parts_.push_back(m);
    }
    return ck::make_device_view<2, float>(m, {rows, cols});
#else
    (void)part;
    return ck::make_device_view<2>(mem_.data() + at, {rows, cols});
#endif
  }
  std::vector<float> read() {
    ck::synchronize();
#if defined(CL_SUCCESS)
    std::vector<float> out(count_);
    if (clEnqueueReadBuffer(ck::opencl::queue(), mem_, CL_TRUE, 0, count_ * sizeof(float), out.data(), 0, nullptr,
                            nullptr) != CL_SUCCESS)
      throw ck::runtime_error("clEnqueueReadBuffer failed");
    return out;
#else
    return mem_;
#endif
  }

 private:
  std::size_t count_;
#if defined(CL_SUCCESS)
  cl_mem mem_;
  std::vector<cl_mem> parts_;
#else
  std::vector<float> mem_;
#endif
};

static std::vector<float> pattern(std::size_t n, int seed) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = float((i * 7 + seed * 13) % 251) - 100.0f;
  return v;
}

// Compares `got` with `want` and prints one line: the case, right or the first wrong element.
static int report(const std::string& what, const std::vector<float>& got, const std::vector<float>& want) {
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      std::printf("%s: element %zu is %g, expected %g\n", what.c_str(), i, got[i], want[i]);
      return 1;
    }
  double sum = 0;
  for (float v : got) sum += v;
  std::printf("%s: right (sum %g)\n", what.c_str(), sum);
  return 0;
}

// c = a + b where a, b and c are at element offsets ao, bo, co of one array (in place
// when two are at one place); `parts`: each a view of its own (on opencl a sub-buffer,
// also at 0). Runs `f` (a __co__ function).
template <typename F>
static int one_array(const std::string& what, F f, std::size_t rows, std::size_t cols, std::size_t ao, std::size_t bo,
                     std::size_t co, bool parts) {
  const std::size_t n = rows * cols;
  const std::vector<float> init = pattern(3 * n, 1);
  memory mem(init);
  try {
    f(mem.view(ao, rows, cols, parts), mem.view(bo, rows, cols, parts), mem.view(co, rows, cols, parts));
    std::vector<float> want = init;
    for (std::size_t i = 0; i < n; ++i) want[co + i] = init[ao + i] + init[bo + i];
    return report(what, mem.read(), want);
  } catch (const ck::runtime_error& e) {
    const std::string msg = e.what();
    std::printf("%s: %s\n", what.c_str(),
                msg.find("generic instance") != std::string::npos ? "generic instance" : msg.c_str());
    return 0;
  }
}

template <typename F>
static int distinct(const std::string& what, F f, std::size_t rows, std::size_t cols) {
  const std::size_t n = rows * cols;
  const std::vector<float> ia = pattern(n, 2), ib = pattern(n, 3), ic = pattern(n, 4);
  memory a(ia), b(ib), c(ic);
  try {
    f(a.view(0, rows, cols, false), b.view(0, rows, cols, false), c.view(0, rows, cols, false));
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = ia[i] + ib[i];
    return report(what, c.read(), want) + report(what + " (a kept)", a.read(), ia);
  } catch (const ck::runtime_error& e) {
    std::printf("%s: %s\n", what.c_str(), e.what());
    return 1;
  }
}

// The host form on arrays one element past an aligned start.
template <typename F>
static int host_offset(const std::string& what, F f, std::size_t rows, std::size_t cols) {
  const std::size_t n = rows * cols;
  std::vector<float> a = pattern(n + 1, 5), b = pattern(n + 1, 6), c(n + 1, 0.0f);
  f(ck::spanned_view<float, 2>(a.data() + 1, {rows, cols}), ck::spanned_view<float, 2>(b.data() + 1, {rows, cols}),
    ck::spanned_view<float, 2>(c.data() + 1, {rows, cols}));
  std::vector<float> got(c.begin() + 1, c.end()), want(n);
  for (std::size_t i = 0; i < n; ++i) want[i] = a[i + 1] + b[i + 1];
  return report(what, got, want);
}

int main() {
  auto into = [](auto a, auto b, auto c) { add_into(a, b, c); };
  auto tiles = [](auto a, auto b, auto c) { add_tiles(a, b, c); };
  const std::size_t rows = 8, cols = 512;
  int bad = 0;
  for (int k = 0; k < 2; ++k) {
    const std::string name = k == 0 ? "add_into" : "add_tiles";
    const std::size_t c = k == 0 ? cols : 256, m = rows * c;
    auto run = [&](auto f) {
      bad += distinct(name + " distinct", f, rows, c);
      bad += one_array(name + " in place (c is a)", f, rows, c, 0, m, 0, false);
      bad += one_array(name + " parts of one array", f, rows, c, 0, m, 2 * m, true);
      bad += one_array(name + " in place (two parts at one place)", f, rows, c, m, 2 * m, m, true);
      bad += host_offset(name + " host arrays one element off alignment", f, rows, c);
    };
    if (k == 0)
      run(into);
    else
      run(tiles);
  }
  if (bad == 0) std::printf("Test Passed\n");
  return bad;
}
