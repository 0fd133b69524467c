// The fast instance of a kernel (every global pointer 16-byte aligned, no written buffer
// overlapping another: vector copies without address tests, __restrict__ pointers) and
// the generic one give the same results: distinct aligned arrays, an in-place call
// (c is a, which takes the generic instance), and arrays one element off alignment.
#include <cstdio>
#include <vector>

__device__ inline void add4(const float* a, const float* b, float* c) {
  for (int i = 0; i < 4; ++i) c[i] = a[i] + b[i];
}

__co__ void add_into(f32 [M, 256] a, f32 [M, 256] b, f32 [M, 256] c) {
  parallel p by M / 4 {
    parallel t by 64 {
      with k in [4] {
        foreach k {   // the fast instance spreads these over blocks (grid_split.py)
          x = dma.copy a.chunkat(p # k, t) => local;
          y = dma.copy b.chunkat(p # k, t) => local;
          local f32 [x.span] z;
          call add4(x.data, y.data, z);
          dma.copy z => c.chunkat(p # k, t);
        }
      }
    }
  }
}

namespace ck = croktile;

// c = a + b element by element, a, b and c at element offsets into one device array
// holding `mem`; every element of it is compared with the host's sum (an in-place call
// is well defined here: each element is read by the work item that writes it).
static int check(const char* what, std::vector<float> mem, long ao, long bo, long co, float* dev, long n) {
  const ck::cuda::device_view<float, 2> a(dev + ao, {std::size_t(n / 256), 256}), b(dev + bo, {std::size_t(n / 256), 256}),
      c(dev + co, {std::size_t(n / 256), 256});
  cudaMemcpy(dev, mem.data(), mem.size() * sizeof(float), cudaMemcpyHostToDevice);
  add_into(a, b, c);
  ck::synchronize(ck::cuda::stream());
  std::vector<float> got(mem.size());
  cudaMemcpy(got.data(), dev, mem.size() * sizeof(float), cudaMemcpyDeviceToHost);
  std::vector<float> want = mem;
  for (long i = 0; i < n; ++i) want[co + i] = mem[ao + i] + mem[bo + i];
  for (std::size_t i = 0; i < mem.size(); ++i)
    if (got[i] != want[i]) {
      std::printf("%s: element %zu is %g, expected %g\n", what, i, got[i], want[i]);
      return 1;
    }
  std::printf("%s: right\n", what);
  return 0;
}

int main() {
  const long n = 64 * 256;
  std::vector<float> mem(3 * n + 16);
  for (std::size_t i = 0; i < mem.size(); ++i) mem[i] = float(i % 251);
  float* dev = nullptr;
  cudaMalloc(&dev, mem.size() * sizeof(float));
  int bad = 0;
  bad += check("distinct, aligned", mem, 0, n, 2 * n, dev, n);
  bad += check("in place (c is a)", mem, 0, n, 0, dev, n);
  bad += check("one element off alignment", mem, 1, n + 2, 2 * n + 3, dev, n);
  cudaFree(dev);
  if (bad == 0) std::printf("Test Passed\n");
  return bad;
}
