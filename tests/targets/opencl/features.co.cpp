// Tileflow shapes the samples do not cover, for comparing the opencl target with
// cpu element for element (tests/targets/opencl/test_opencl.py builds it for both and
// compares the printed results). Every function prints its result in main.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

__cok__ {
extern "C" {
  void add_rows(int* acc, const int* rows, int nrows, int n) {
    for (int r = 0; r < nrows; ++r)
      for (int j = 0; j < n; ++j) acc[j] += rows[r * n + j];
  }
  void scale(const int* in, int* out, int n, int k) {
    for (int i = 0; i < n; ++i) out[i] = in[i] * k;
  }
}
  extern "C" void axpy(float a, const float* x, float* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
  }
  extern "C" void bump(int* x, int n, int v) { for (int i = 0; i < n; ++i) x[i] += v; }
  extern "C" void fill_id(int* x, int n, int id) { for (int i = 0; i < n; ++i) x[i] = id * 100 + i; }
}

// Outer level with async loads into shared memory (work-group copies with events),
// double-buffered with swap, an inner level that reads the shared tile, and
// an outer-level `local` buffer the inner level writes.
__co__ s32 [4, 8, 16] group_pipeline(s32 [4, 8, 16] src) {
  s32 [src.span] out;
  parallel p by 4 {
    local s32 [1, 8, 16] res;              // belongs to the outer instance
    with k in [8] {
      cur = dma.copy.async src.chunkat(p, k, _) => shared;
      foreach k {
        nxt = dma.copy.async src.chunkat(p, (k + 1) % #k, _) => shared;
        wait cur;
        parallel q by 4 {
          local s32 [1, 1, 4] t;
          call scale(cur.data, t, 4, q + 1);         // each q reads the first 4 of the tile
          dma.copy t => res.chunkat(_, k, q);
        }
        swap(cur, nxt);
      }
      wait cur;
    }
    call bump(res, 128, p);                      // outer level: once per p
    dma.copy res => out.chunkat(p, _, _);
  }
  return out;
}

// A symbolic inner count and a symbolic shared buffer; the caller's data passed
// straight to a call (a __global pointer).
__co__ s32 [M, N] sym_inner(s32 [M, N] a, int Q) {
  s32 [a.span] out;
  parallel p by M {
    shared s32 [1, N] row;
    shared s32 [Q, N] part;
    r = dma.copy a.chunkat(p, _) => shared;
    parallel q by Q {
      local s32 [1, N] mine;
      call scale(r.data, mine, N, q);
      dma.copy mine => part.chunkat(q, _);  // row q of part: one writer each
    }
    call add_rows(row, part, Q, N);
    call add_rows(row, a, 1, N);            // row 0 of the caller's a, in global memory
    dma.copy row => out.chunkat(p, _);
  }
  return out;
}

// Three levels: the third runs as a loop inside each work-item.
__co__ s32 [2, 3, 4, 8] three_levels() {
  s32 [2, 3, 4, 8] out;
  parallel a by 2 {
    parallel b by 3 {
      parallel c by 4 {
        local s32 [1, 1, 1, 8] x;
        call fill_id(x, 8, a * 100 + b * 10 + c);
        dma.copy x => out.chunkat(a, b, c, _);
      }
    }
  }
  return out;
}

// Float arguments and host-level copies between global buffers.
__co__ f32 [4, 8] floats(f32 [4, 8] x, f32 [4, 8] y, float alpha) {
  f32 [4, 8] t;
  dma.copy y => t;
  parallel p by 4 {
    xs = dma.copy x.chunkat(p, _) => local;
    ys = dma.copy t.chunkat(p, _) => local;
    call axpy(alpha, xs.data, ys.data, 8);
    call axpy(0.5, xs.data, ys.data, 8);
    dma.copy ys => t.chunkat(p, _);
  }
  s32 [2, 2] unused;
  return t;
}

// Computed chunkat indices checked inside kernels: the outer level (p) and the
// inner level (q) each leave their bound when shift is 1.
__co__ s32 [4, 8] checked(s32 [4, 8] a, int shift) {
  s32 [a.span] out;
  parallel p by 4 {
    t = dma.copy a.chunkat(p, _) => local;
    u = dma.copy a.chunkat((p + shift) % 5, _) => local;
    call add_rows(t, u, 1, 8);
    dma.copy t => out.chunkat(p, _);
  }
  return out;
}

__co__ s32 [4, 8] checked_inner(s32 [4, 8] a, int shift) {
  s32 [a.span] out;
  parallel p by 2 {
    shared s32 [4, 8] acc;
    parallel q by 4 {
      u = dma.copy a.chunkat((q + shift) % 5, _) => local;
      dma.copy u => acc.chunkat(q, _);
    }
    call bump(acc, 32, 1);             // both instances store the same values
    dma.copy acc => out;
  }
  return out;
}

// The same at the outer level of a two-level kernel (uniform: the whole group leaves).
__co__ s32 [2, 16] checked_outer(s32 [2, 16] a, int shift) {
  s32 [a.span] out;
  parallel p by 2 {
    u = dma.copy a.chunkat((p + shift) % 3, _) => shared;
    parallel q by 4 {
      v = dma.copy u.data.chunkat(_, q) => local;
      call bump(v, 4, q);
      dma.copy v => out.chunkat(p, q);
    }
  }
  return out;
}

// Several launches of one function, one inside a host-level loop whose variable
// the kernel reads.
__co__ s32 [4, 8] launches(s32 [4, 8] a) {
  s32 [a.span] mid;
  s32 [a.span] out;
  parallel p by 4 {
    t = dma.copy a.chunkat(p, _) => local;
    call bump(t, 8, 1);
    dma.copy t => mid.chunkat(p, _);
  }
  with r in [3] {
    foreach r {
      parallel p by 2 {
        t = dma.copy mid.chunkat(p, _) => local;
        call bump(t, 16, r * 10);
        dma.copy t => mid.chunkat(p, _);
      }
    }
  }
  parallel p by 4 {
    t = dma.copy mid.chunkat(p, _) => local;
    call scale(t, t, 8, p + 2);
    dma.copy t => out.chunkat(p, _);
  }
  return out;
}

template <typename T>
static void print(const char* name, const T& res) {
  std::printf("%s:", name);
  for (auto v : res) std::printf(" %g", double(v));
  std::printf("\n");
}

int main() {
  std::vector<int> src(4 * 8 * 16);
  for (size_t i = 0; i < src.size(); ++i) src[i] = int(i * 37 % 101) - 50;
  print("group_pipeline", group_pipeline(choreo::make_spanview<3>(src.data(), {4, 8, 16})));
  std::vector<int> a(5 * 6);
  for (size_t i = 0; i < a.size(); ++i) a[i] = int(i) - 7;
  print("sym_inner", sym_inner(choreo::make_spanview<2>(a.data(), {5, 6}), 3));
  print("sym_inner2", sym_inner(choreo::make_spanview<2>(a.data(), {3, 10}), 5));
  print("three_levels", three_levels());
  std::vector<float> x(32), y(32);
  for (int i = 0; i < 32; ++i) { x[i] = float(i) * 0.25f; y[i] = float(32 - i); }
  print("floats", floats(choreo::make_spanview<2>(x.data(), {4, 8}), choreo::make_spanview<2>(y.data(), {4, 8}), 2.0f));
  std::vector<int> c(4 * 8);
  for (size_t i = 0; i < c.size(); ++i) c[i] = int(i * 5 % 17) - 8;
  print("launches", launches(choreo::make_spanview<2>(c.data(), {4, 8})));
  print("checked", checked(choreo::make_spanview<2>(c.data(), {4, 8}), 0));
  print("checked_inner", checked_inner(choreo::make_spanview<2>(c.data(), {4, 8}), 0));
  print("checked_outer", checked_outer(choreo::make_spanview<2>(c.data(), {2, 16}), 0));
  for (int inner = 0; inner < 3; ++inner) {
    try {
      if (inner == 2)
        checked_outer(choreo::make_spanview<2>(c.data(), {2, 16}), 1);
      else if (inner)
        checked_inner(choreo::make_spanview<2>(c.data(), {4, 8}), 1);
      else
        checked(choreo::make_spanview<2>(c.data(), {4, 8}), 1);
      std::printf("shift 1: no error\n");
    } catch (const croktile::runtime_error& e) {
      std::printf("shift 1: %s\n", e.what());
    }
  }
  return 0;
}
