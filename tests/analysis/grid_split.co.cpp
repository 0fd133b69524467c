// Loops whose iterations the fast instance of a cuda or opencl kernel spreads over more blocks
// (croktile_driver/toolchains/grid_split.py), and loops it must run whole. Each function's
// result is compared with the host's; the cpu build prints the same lines.
#include <cstdio>
#include <vector>

__cok__ {
  extern "C" void add4(const float* a, const float* b, float* c) {
    for (int i = 0; i < 4; ++i) c[i] = a[i] + b[i];
  }
  extern "C" void acc4(const float* a, float* s) {
    for (int i = 0; i < 4; ++i) s[i] += a[i];
  }
}

// the tiling with symbolic shapes: spread (64 rows a block)
__co__ f32 [a.span] rows(f32 [M, N] a, f32 [M, N] b) {
  f32 [a.span] c;
  parallel p by M / 64 {
    parallel q by 256 {
      with {jm, jn} in [64, N / 1024] {
        foreach jm, jn {
          x = dma.copy a.chunkat(p # jm, jn # q) => local;
          y = dma.copy b.chunkat(p # jm, jn # q) => local;
          local f32 [x.span] z;
          call add4(x.data, y.data, z);
          dma.copy z => c.chunkat(p # jm, jn # q);
        }
      }
    }
  }
  return c;
}

// 100 iterations over a grid of 200: the parts do not divide the loop (spread)
__co__ f32 [a.span] tail(f32 [20000, 128] a, f32 [20000, 128] b) {
  f32 [a.span] c;
  parallel p by 200 {
    parallel q by 32 {
      foreach j in [100] {
        local f32 [1, 4] z;
        foreach i in [4] z.at(0, i) = a.at(p # j, q # i) * 2.0f + b.at(p # j, q # i);
        dma.copy z => c.chunkat(p # j, q);
      }
    }
  }
  return c;
}

// a sum carried from one iteration to the next in thread data (run whole)
__co__ f32 [8, 128] carried(f32 [64, 128] a) {
  f32 [8, 128] c;
  parallel p by 8 {
    parallel q by 32 {
      local f32 [1, 4] s;
      foreach j in [8] {
        x = dma.copy a.chunkat(p # j, q) => local;
        call acc4(x.data, s);
      }
      dma.copy s => c.chunkat(p, q);
    }
  }
  return c;
}

// every iteration writes the same chunk; the last one's stays (run whole)
__co__ f32 [8, 128] same_chunk(f32 [64, 128] a) {
  f32 [8, 128] c;
  parallel p by 8 {
    parallel q by 32 {
      foreach j in [8] {
        x = dma.copy a.chunkat(p # j, q) => local;
        dma.copy x.data => c.chunkat(p, q);
      }
    }
  }
  return c;
}

// each iteration reads the row the previous one wrote (run whole)
__co__ void prefix(f32 [64, 128] c) {
  parallel q by 32 {
    foreach j in [63] {
      x = dma.copy c.subspan(1, 4).at(j, q) => local;
      y = dma.copy c.subspan(1, 4).at(j + 1, q) => local;
      local f32 [1, 4] z;
      call add4(x.data, y.data, z);
      dma.copy z => c.subspan(1, 4).at(j + 1, q);
    }
  }
}

namespace ck = croktile;

static int report(const char* what, const float* got, const std::vector<float>& want) {
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      std::printf("%s: element %zu is %g, expected %g\n", what, i, got[i], want[i]);
      return 1;
    }
  std::printf("%s: right\n", what);
  return 0;
}

template <std::size_t R, std::size_t C>
static ck::spanned_data<float, 2> data(int salt) {
  auto d = ck::make_spandata<float>(R, C);
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j) d[i][j] = float((i * 7 + j * 3 + salt) % 101);
  return d;
}

int main() {
  int bad = 0;
  {
    auto a = data<128, 2048>(1), b = data<128, 2048>(2);
    auto c = rows(a.view(), b.view());
    std::vector<float> want(128 * 2048);
    for (std::size_t i = 0; i < want.size(); ++i) want[i] = a.data()[i] + b.data()[i];
    bad += report("rows", c.data(), want);
  }
  {
    auto a = data<20000, 128>(3), b = data<20000, 128>(4);
    auto c = tail(a.view(), b.view());
    std::vector<float> want(20000 * 128);
    for (std::size_t i = 0; i < want.size(); ++i) want[i] = a.data()[i] * 2.0f + b.data()[i];
    bad += report("tail", c.data(), want);
  }
  {
    auto a = data<64, 128>(5);
    auto c = carried(a.view());
    std::vector<float> want(8 * 128, 0.0f);
    for (std::size_t p = 0; p < 8; ++p)
      for (std::size_t j = 0; j < 8; ++j)
        for (std::size_t k = 0; k < 128; ++k) want[p * 128 + k] += a[p * 8 + j][k];
    bad += report("carried", c.data(), want);
  }
  {
    auto a = data<64, 128>(6);
    auto c = same_chunk(a.view());
    std::vector<float> want(8 * 128);
    for (std::size_t p = 0; p < 8; ++p)
      for (std::size_t k = 0; k < 128; ++k) want[p * 128 + k] = a[p * 8 + 7][k];
    bad += report("same_chunk", c.data(), want);
  }
  {
    auto c = data<64, 128>(7);
    std::vector<float> want(c.data(), c.data() + 64 * 128);
    for (std::size_t j = 1; j < 64; ++j)
      for (std::size_t k = 0; k < 128; ++k) want[j * 128 + k] += want[(j - 1) * 128 + k];
    prefix(c.view());
    bad += report("prefix", c.data(), want);
  }
  return bad;
}
