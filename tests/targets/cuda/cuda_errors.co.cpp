// Run-time failures of the cuda target's host code: each must become a
// croktile::runtime_error naming the .co.cpp location. A shared buffer sized by
// an argument is planned as dynamic shared memory; asked for more than the device
// has, the launch fails before the kernel runs.
#include <cstdio>
#include <vector>

__device__ void touch(int* x, int n) { x[n - 1] += 1; }

__co__ s32 [2, N] sized(s32 [2, N] a) {
  s32 [a.span] out;
  parallel p by 2 {
    t = dma.copy a.chunkat(p, _) => shared;
    call touch(t.data, |t.span|);
    dma.copy t.data => out.chunkat(p, _);
  }
  return out;
}

int main() {
  for (int n : {1024, 1 << 20}) {   // 4 KiB fits; 4 MiB of shared memory cannot
    std::vector<int> a(2 * (size_t)n, 1);
    try {
      auto r = sized(choreo::make_spanview<2>(a.data(), {2, (size_t)n}));
      std::printf("n=%d ok %d\n", n, r[1][n - 1]);
    } catch (const croktile::runtime_error& e) {
      std::printf("n=%d error: %s\n", n, e.what());
    }
  }
  return 0;
}
