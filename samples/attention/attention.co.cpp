// Fused attention forward, O = softmax(Q K^T / sqrt(HDIM)) V, for [BH, S, HDIM] tensors of
// f16 (or -DELEM=bf16), head dimension HDIM = 64 (or -DHDIM=128), causal with -DCAUSAL=1;
// the shapes are the tensors' (S a multiple of the block's rows). Each block takes BM =
// 64 * WARP_GROUPS query rows of one head and walks the keys BN at a time; each warp group
// keeps its 64 rows' scores S = Q K^T and output O in registers and the online softmax's
// running row maximum and row sum in row vectors (mma.row.max, mma.exp, mma.row.sum, ...),
// converts the probabilities to an A operand in registers (mma.cvt) and multiplies them
// by the V tile, given as keys x columns (mma.row.col). The copy engine loads the next K
// and V tiles while a step computes: the key loop is `pipelined(2)`, two buffers each.
// A causal block stops at the diagonal and masks the tiles that cross it
// (mma.mask.causal, only on the tiles that cross the diagonal: the others need none, and
// masking every tile cost 10-20% at 4k-8k). A head of 128 columns is two tiles of 64
// (128-byte swizzled rows).
// Needs -arch=sm_90a on cuda; the cpu and factor targets run it with portable
// tensor-core arithmetic. Tile sizes are macros (BN, WARP_GROUPS), so a sweep builds variants.
//
//   croktilec -t cuda -arch=sm_90a samples/attention/attention.co.cpp -o attn && ./attn
//   croktilec -t cpu -DHDIM=128 -DCAUSAL=1 samples/attention/attention.co.cpp -o attn && ./attn
#include <cmath>
#include <iostream>
#include <type_traits>
#include <vector>

#ifndef ELEM
#define ELEM f16
#endif
#ifndef HDIM
#define HDIM 64
#endif
#ifndef CAUSAL
#define CAUSAL 0
#endif
// keys per step and warp groups per block: the best of a sweep on an H100
// (bench/bench_attention.py, bench/README.md)
#if HDIM == 64 && CAUSAL
#define BEST_BN 64
#define BEST_WARP_GROUPS 1
#else
#define BEST_BN 128
#define BEST_WARP_GROUPS 2
#endif
#ifndef BN
#define BN BEST_BN
#endif
#ifndef WARP_GROUPS
#define WARP_GROUPS BEST_WARP_GROUPS
#endif
#define BM (64 * WARP_GROUPS)
// a tile of one head: ROWS rows from row tile R, the 64 columns of part P
#define TILE(x, b, h, ROWS, R, P) x.subspan(1, 1, ROWS, 64).at(b, h, R, P)
// -DKEYS_ARG=1: k and v are caches of CAP rows whose first SK hold the keys, SK an argument
// after scale (a decoder attends over its cache in place, samples/llama/); their tiles are
// taken from the first SK rows, so that rows past them read as zeros, as past a tensor's end
#ifndef KEYS_ARG
#define KEYS_ARG 0
#endif
#if KEYS_ARG
#define KV_ROWS CAP
#define KEYS_PARAM , int SK
#define KV_TILE(x, b, h, ROWS, R, P) TILE(x.view(1, 1, SK, HDIM).from(b, h, 0, 0), 0, 0, ROWS, R, P)
#define KEYS_VALUE(n) , n
#else
#define KV_ROWS SK
#define KEYS_PARAM
#define KV_TILE TILE
#define KEYS_VALUE(n)
#endif

__co__ auto attention(ELEM [B, HQ, SQ, HDIM] q, ELEM [B, HKV, KV_ROWS, HDIM] k, ELEM [B, HKV, KV_ROWS, HDIM] v,
                      float scale KEYS_PARAM) {
  assert(HQ % HKV == 0, "attention: the query heads must be a multiple of the key/value heads");
  assert(!CAUSAL || SK >= SQ, "attention: causal attention needs at least as many keys as queries");
  ELEM [B, HQ, SQ, HDIM] out;
  int group = HQ / HKV;   // query heads per key/value head (grouped-query attention)
  parallel {b, h, mi} by [B, HQ, cdiv(SQ, BM)] : block {
    // causal: the blocks of the last rows (the most key tiles) first, so the short ones
    // fill the end of the grid
    int m = CAUSAL ? cdiv(SQ, BM) - 1 - mi : mi;
    int hk = h / group;
    // causal, aligned bottom-right: query row i sees the keys up to i + SK - SQ; the key
    // tiles up to the last row's
    int last = (m + 1) * BM - 1 + SK - SQ;
    with j in [CAUSAL && last < SK ? last / BN + 1 : cdiv(SK, BN)] {
      q0 = tma.copy.async.swiz<128> TILE(q, b, h, BM, m, 0) => shared;
#if HDIM == 128
      q1 = tma.copy.async.swiz<128> TILE(q, b, h, BM, m, 1) => shared;
      o1 = mma.fill.f32 0.0f;
#endif
      s = mma.fill.f32 0.0f;    // the scores of a step, 64 x BN per warp group
      o0 = mma.fill.f32 0.0f;   // the output, 64 x 64 per warp group (and o1: columns 64..127)
      mx = mma.row.fill.f32 -1.0e30f;   // the running row maximum of the scores
      sum = mma.row.fill.f32 0.0f;      // the running row sum of exp(scale (s - mx))
      alpha = mma.row.fill.f32 0.0f;    // the rescaling of a step
      wait q0;
#if HDIM == 128
      wait q1;
#endif
      // two buffers per tile: the next step's tiles load while this one computes
      foreach j : pipelined(2) {
        k0 = tma.copy.async.swiz<128> KV_TILE(k, b, hk, BN, j, 0) => shared;
        v0 = tma.copy.async.swiz<128> KV_TILE(v, b, hk, BN, j, 0) => shared;
#if HDIM == 128
        k1 = tma.copy.async.swiz<128> KV_TILE(k, b, hk, BN, j, 1) => shared;
        v1 = tma.copy.async.swiz<128> KV_TILE(v, b, hk, BN, j, 1) => shared;
#endif
        parallel g by WARP_GROUPS : group-4 {
          mma.fill s, 0.0f;
          qa = mma.load.swiz<128> q0.data.chunkat(_, _, g, _);
          kb = mma.load.swiz<128> k0.data;
          mma.row.row s, qa, kb;
#if HDIM == 128
          qa1 = mma.load.swiz<128> q1.data.chunkat(_, _, g, _);
          kb1 = mma.load.swiz<128> k1.data;
          mma.row.row s, qa1, kb1;
#endif
          // the last tile's keys past SK are zeros: no weight
          if (j * BN + BN > SK)
            mma.mask.cols s, SK - j * BN;
#if CAUSAL
          // only the tiles with a key after one of the warp group's rows can see (its first's)
          if (j * BN + BN - 1 > m * BM + g * 64 + SK - SQ)
            mma.mask.causal s, m * BM + g * 64 + SK - SQ, j * BN;
#endif
          mma.row.fill alpha, mx;          // the old maximum
          mma.row.max mx, s;               // the new one
          mma.exp alpha, mx, scale;        // exp(scale (old - new))
          mma.exp s, mx, scale;            // P = exp(scale (S - max))
          mma.row.scale sum, alpha;
          mma.row.sum sum, s;
          mma.row.scale o0, alpha;
          p = mma.cvt.ELEM s;
          vb = mma.load.swiz<128> v0.data;   // BN keys x 64 columns
          mma.row.col o0, p, vb;
#if HDIM == 128
          mma.row.scale o1, alpha;
          vb1 = mma.load.swiz<128> v1.data;
          mma.row.col o1, p, vb1;
#endif
        }
      }
      // the block's rows of the output, whole rows: one copy writes them
      shared ELEM [1, 1, BM, HDIM] os;
      parallel g by WARP_GROUPS : group-4 {
        mma.row.div o0, sum;
        mma.store o0, os.subspan(1, 1, 64, 64).at(0, 0, g, 0);
#if HDIM == 128
        mma.row.div o1, sum;
        mma.store o1, os.subspan(1, 1, 64, 64).at(0, 0, g, 1);
#endif
      }
      tma.copy os => out.subspan(1, 1, BM, HDIM).at(b, h, m, 0);
    }
  }
  return out;
}

// the largest error of attention(q, k, v) against a double-precision reference, at one shape
static double worst_error(size_t B, size_t HQ, size_t HKV, size_t SQ, size_t SK) {
  auto q = croktile::make_spandata<croktile::ELEM>(B, HQ, SQ, HDIM);
  auto k = croktile::make_spandata<croktile::ELEM>(B, HKV, SK, HDIM);
  auto v = croktile::make_spandata<croktile::ELEM>(B, HKV, SK, HDIM);
  q.fill_random(-1.0f, 1.0f);
  k.fill_random(-1.0f, 1.0f);
  v.fill_random(-1.0f, 1.0f);
  auto o = attention(q.view(), k.view(), v.view(), 1.0f / std::sqrt((float)HDIM) KEYS_VALUE((int)SK));
  double worst = 0;
  std::vector<double> p(SK);
  for (size_t b = 0; b < B; ++b)
    for (size_t h = 0; h < HQ; ++h)
      for (size_t i = 0; i < SQ; ++i) {
        const size_t hk = h / (HQ / HKV), keys = CAUSAL ? i + 1 + SK - SQ : SK;
        double top = -1e300, total = 0;
        for (size_t j = 0; j < keys; ++j) {
          double dot = 0;
          for (size_t d = 0; d < HDIM; ++d) dot += (double)(float)q[b][h][i][d] * (float)k[b][hk][j][d];
          p[j] = dot / std::sqrt((double)HDIM);
          top = std::fmax(top, p[j]);
        }
        for (size_t j = 0; j < keys; ++j) total += p[j] = std::exp(p[j] - top);
        for (size_t d = 0; d < HDIM; ++d) {
          double ref = 0;
          for (size_t j = 0; j < keys; ++j) ref += p[j] * (float)v[b][hk][j][d];
          worst = std::fmax(worst, std::fabs((float)o[b][h][i][d] - ref / total));
        }
      }
  return worst;
}

int main() {
  // P is rounded to the input type before it multiplies V; bf16 keeps 8 bits
  const double tolerance = std::is_same<croktile::ELEM, croktile::bf16>::value ? 2e-2 : 4e-3;
  // whole tiles; then grouped-query heads, lengths the tiles do not divide, fewer queries
  // than keys (a prefill onto a cache), one query (a decode step)
  const size_t shapes[][5] = {{1, 2, 2, 2 * BM, 2 * BM}, {2, 4, 2, BM + 37, BM + 37}, {1, 4, 1, 70, 2 * BM + 9},
                              {1, 2, 1, 1, BN + 3}};
  for (const auto& s : shapes) {
    double worst = worst_error(s[0], s[1], s[2], s[3], s[4]);
    if (worst >= tolerance) {
      std::cout << "attention " << s[0] << " x " << s[1] << "/" << s[2] << " heads x " << s[3] << " x " << s[4]
                << " differs: error " << worst << "\n";
      return 1;
    }
  }
  std::cout << "Test Passed\n";
}
