// Instances of functions over symbolic shapes (croktile_driver/toolchains/instances.py):
// the same tilings with constant and with symbolic shapes must give the same results on
// every target, for shapes that take the divisibility instance (32 divides N, 4 divides M)
// and for shapes that miss it and run the generic body (N = 40: chunks of 5 columns).
//   instances add M N     the streaming add, symbolic (and static where M x N is 8 x 64)
//   instances scale M N   a void function writing its result into an argument
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__cok__ {
  extern "C" void add_run(const float* a, const float* b, float* c, int n) {
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
  }
  extern "C" void triple(const int* a, int* b, int n) {
    for (int i = 0; i < n; ++i) b[i] = 3 * a[i];
  }
}

__co__ f32 [8, 64] add_static(f32 [8, 64] a, f32 [8, 64] b) {
  f32 [a.span] c;
  parallel p by 2 {
    parallel q by 8 {
      with {jm, jn} in [4, 2] {
        foreach jm, jn {
          x = dma.copy a.chunkat(p # jm, jn # q) => local;
          y = dma.copy b.chunkat(p # jm, jn # q) => local;
          local f32 [x.span] z;
          call add_run(x.data, y.data, z, |x.span|);
          dma.copy z => c.chunkat(p # jm, jn # q);
        }
      }
    }
  }
  return c;
}

__co__ f32 [a.span] add_symbolic(f32 [M, N] a, f32 [M, N] b) {
  f32 [a.span] c;
  parallel p by M / 4 {
    parallel q by 8 {
      with {jm, jn} in [4, N / 32] {
        foreach jm, jn {
          x = dma.copy a.chunkat(p # jm, jn # q) => local;
          y = dma.copy b.chunkat(p # jm, jn # q) => local;
          local f32 [x.span] z;
          call add_run(x.data, y.data, z, |x.span|);
          dma.copy z => c.chunkat(p # jm, jn # q);
        }
      }
    }
  }
  return c;
}

__co__ void scale_into(s32 [M, N] a, s32 [M, N] out) {
  parallel p by M / 2 {
    with j in [N / 16] {
      foreach j {
        x = dma.copy a.chunkat(p, j) => local;
        local s32 [x.span] y;
        call triple(x.data, y, |x.span|);
        dma.copy y => out.chunkat(p, j);
      }
    }
  }
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const std::size_t m = std::strtoul(argv[2], nullptr, 10), n = std::strtoul(argv[3], nullptr, 10);
  bool ok = true;
  if (std::strcmp(argv[1], "add") == 0) {
    std::vector<float> a(m * n), b(m * n);
    for (std::size_t i = 0; i < m * n; ++i) a[i] = float(i % 97), b[i] = float(i % 13) * 0.5f;
    auto va = choreo::make_spanview<2>(a.data(), {m, n}), vb = choreo::make_spanview<2>(b.data(), {m, n});
    auto c = add_symbolic(va, vb);
    for (std::size_t i = 0; i < m * n; ++i) ok = ok && c.data()[i] == a[i] + b[i];
    if (m == 8 && n == 64) {
      auto s = add_static(va, vb);
      ok = ok && std::memcmp(s.data(), c.data(), m * n * sizeof(float)) == 0;
    }
  } else {
    std::vector<int> a(m * n), out(m * n, -1);
    for (std::size_t i = 0; i < m * n; ++i) a[i] = int(i % 31) - 7;
    scale_into(choreo::make_spanview<2>(a.data(), {m, n}), choreo::make_spanview<2>(out.data(), {m, n}));
    for (std::size_t i = 0; i < m * n; ++i) ok = ok && out[i] == 3 * a[i];
  }
  std::printf("%s %zux%zu %s\n", argv[1], m, n, ok ? "right" : "WRONG");
  return ok ? 0 : 1;
}
