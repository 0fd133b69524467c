// Decode attention (flash-decoding): draft
#include <cmath>
#include <iostream>
#include <type_traits>
#include <vector>

#ifndef ELEM
#define ELEM f16
#endif
#ifndef HDIM
#define HDIM 128
#endif
#ifndef CAUSAL
#define CAUSAL 0
#endif
#ifndef BN
#define BN 64
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef HEADS
#define HEADS 4
#endif
#define QROWS (64 / HEADS)
#ifndef BLOCKS
#define BLOCKS 264
#endif
#define TILE(x, b, h, ROWS, R, P) x.subspan(1, 1, ROWS, 64).at(b, h, R, P)

__device__ float decode_exp(float x) { return expf(x); }

__co__ auto decode(ELEM [B, HQ, SQ, HDIM] q, ELEM [B, HKV, SK, HDIM] k, ELEM [B, HKV, SK, HDIM] v,
                   float scale) {
  assert(HQ % HKV == 0, "decode: the query heads must be a multiple of the key/value heads");
  assert((HQ / HKV) % HEADS == 0, "decode: the query heads of a key/value head must be a multiple of HEADS");
  assert(!CAUSAL || SK >= SQ, "decode: causal attention needs at least as many keys as queries");
  // the key tiles of a row tile split across blocks: enough blocks for BLOCKS (about two per
  // SM), at least one tile each, no split left empty
  int tiles0 = cdiv(SK, BN);
  int mtiles = cdiv(SQ, QROWS);
  int rowtiles = B * (HQ / HEADS) * mtiles;
  int want = rowtiles < BLOCKS ? BLOCKS / rowtiles : 1;
  int per = cdiv(tiles0, want < tiles0 ? want : tiles0);
  int splits = cdiv(tiles0, per);
  ELEM [B, HQ, SQ, HDIM] out;
  f32 [B, HQ, splits, SQ, HDIM] part;
  f32 [B, HQ, splits, SQ, 16] stat;
  int group = HQ / HKV;
  parallel {b, hg, m, sp} by [B, HQ / HEADS, mtiles, splits] : block {
    int hk = hg * HEADS / group;
    int last = m * QROWS + QROWS - 1 + SK - SQ;
    int tiles = CAUSAL && last < SK ? last / BN + 1 : tiles0;
    int first = sp * per;
    int left = tiles - first;
    int count = left >= per ? per : (left >= 1 ? left : 1);
    with j in [count] {
      q0 = tma.copy.async.swiz<128> q.subspan(1, HEADS, QROWS, 64).at(b, hg, m, 0) => shared;
#if HDIM == 128
      q1 = tma.copy.async.swiz<128> q.subspan(1, HEADS, QROWS, 64).at(b, hg, m, 1) => shared;
      o1 = mma.fill.f32 0.0f;
#endif
      s = mma.fill.f32 0.0f;
      o0 = mma.fill.f32 0.0f;
      mx = mma.row.fill.f32 -1.0e30f;
      sum = mma.row.fill.f32 0.0f;
      alpha = mma.row.fill.f32 0.0f;
      wait q0;
#if HDIM == 128
      wait q1;
#endif
      foreach j : pipelined(STAGES) {
        k0 = tma.copy.async.swiz<128> TILE(k, b, hk, BN, first + j, 0) => shared;
        v0 = tma.copy.async.swiz<128> TILE(v, b, hk, BN, first + j, 0) => shared;
#if HDIM == 128
        k1 = tma.copy.async.swiz<128> TILE(k, b, hk, BN, first + j, 1) => shared;
        v1 = tma.copy.async.swiz<128> TILE(v, b, hk, BN, first + j, 1) => shared;
#endif
        parallel g by 1 : group-4 {
          mma.fill s, 0.0f;
          qa = mma.load.swiz<128> q0.data.span_as([64, 64]);
          kb = mma.load.swiz<128> k0.data;
          mma.row.row s, qa, kb;
#if HDIM == 128
          qa1 = mma.load.swiz<128> q1.data.span_as([64, 64]);
          kb1 = mma.load.swiz<128> k1.data;
          mma.row.row s, qa1, kb1;
#endif
          if ((first + j) * BN + BN > SK)
            mma.mask.cols s, SK - (first + j) * BN;
#if CAUSAL
          // query m * QROWS + i of each head (row i of every QROWS) sees the keys up to
          // itself + SK - SQ; only the tiles past the first query's last key need the mask
          if ((first + j) * BN + BN - 1 > m * QROWS + SK - SQ)
            mma.mask.causal s, m * QROWS + SK - SQ, (first + j) * BN, QROWS;
#endif
          mma.row.fill alpha, mx;
          mma.row.max mx, s;
          mma.exp alpha, mx, scale;
          mma.exp s, mx, scale;
          mma.row.scale sum, alpha;
          mma.row.sum sum, s;
          mma.row.scale o0, alpha;
          p = mma.cvt.ELEM s;
          vb = mma.load.swiz<128> v0.data;
          mma.row.col o0, p, vb;
#if HDIM == 128
          mma.row.scale o1, alpha;
          vb1 = mma.load.swiz<128> v1.data;
          mma.row.col o1, p, vb1;
#endif
        }
      }
      shared f32 [1, HEADS, 1, QROWS, HDIM] os;
      shared f32 [1, HEADS, 1, QROWS, 16] ss;
      parallel g by 1 : group-4 {
        mma.store o0, os.span_as([64, HDIM]).subspan(64, 64).at(0, 0);
#if HDIM == 128
        mma.store o1, os.span_as([64, HDIM]).subspan(64, 64).at(0, 1);
#endif
        t = mma.fill.f32 1.0f;
        mma.row.scale t, mx;
        mma.store t, ss.span_as([64, 16]).subspan(64, 8).at(0, 0);
        mma.fill t, 1.0f;
        mma.row.scale t, sum;
        mma.store t, ss.span_as([64, 16]).subspan(64, 8).at(0, 1);
      }
      tma.copy os => part.subspan(1, HEADS, 1, QROWS, HDIM).at(b, hg, sp, m, 0);
      tma.copy ss => stat.subspan(1, HEADS, 1, QROWS, 16).at(b, hg, sp, m, 0);
    }
  }
  parallel {b, h, i} by [B, HQ, SQ] : block {
    parallel d by HDIM : thread {
      mutable float top = -1.0e30f;
      foreach s in [splits] {
        float x = stat.at(b, h, s, i, 0);
        top = x > top ? x : top;
      }
      mutable float acc = 0.0f;
      mutable float den = 0.0f;
      foreach s in [splits] {
        mutable float w = call decode_exp(scale * (stat.at(b, h, s, i, 0) - top));
        den += w * stat.at(b, h, s, i, 8);
        acc += w * part.at(b, h, s, i, d);
      }
      out.at(b, h, i, d) = acc / den;
    }
  }
  return out;
}

// the largest error of decode(q, k, v) against a double-precision reference, at one shape
static double worst_error(size_t B, size_t HQ, size_t HKV, size_t SQ, size_t SK) {
  auto q = croktile::make_spandata<croktile::ELEM>(B, HQ, SQ, HDIM);
  auto k = croktile::make_spandata<croktile::ELEM>(B, HKV, SK, HDIM);
  auto v = croktile::make_spandata<croktile::ELEM>(B, HKV, SK, HDIM);
  q.fill_random(-1.0f, 1.0f);
  k.fill_random(-1.0f, 1.0f);
  v.fill_random(-1.0f, 1.0f);
  const double scale = 1.0 / std::sqrt((double)HDIM);
  auto o = decode(q.view(), k.view(), v.view(), (float)scale);
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
          p[j] = dot * scale;
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
  // B, query heads, key/value heads, queries, keys: one query, several, a whole row tile of
  // them; a cache of one key, a partial last tile, more tiles than splits
  const size_t shapes[][5] = {{1, 4, 1, 1, 77}, {2, 8, 2, 5, 1000}, {1, 8, 1, 16, 300}, {1, 4, 1, 1, 1}, {1, 4, 1, 16, 20}};
  for (const auto& s : shapes) {
    double worst = worst_error(s[0], s[1], s[2], s[3], s[4]);
    if (!(worst < tolerance)) {
      std::cout << "decode " << s[0] << " x " << s[1] << "/" << s[2] << " heads x " << s[3] << " x " << s[4]
                << " differs: error " << worst << "\n";
      return 1;
    }
  }
  std::cout << "Test Passed\n";
}
