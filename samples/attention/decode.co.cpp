// Decode attention by flash-decoding: O = softmax(scale Q K^T) V for a few new queries
// (SQ = 1..16, more work too) over a long key/value cache, in PyTorch's SDPA layout
// q [B, HQ, SQ, HDIM], k, v [B, HKV, SK, HDIM]: grouped-query heads (HQ a multiple of HKV),
// any SK >= 1, causal aligned bottom-right with -DCAUSAL=1 (query i sees the keys j <= i +
// SK - SQ), f16 (or -DELEM=bf16), HDIM 128 (or -DHDIM=64).
//
// attention.co.cpp gives each block 64-128 query rows of one head and walks all the keys;
// at decode that is B * HQ blocks of one row each, every one reading its whole cache. Here
//  - the rows of one wgmma tile (64) are the queries of HEADS = 4 query heads that share a
//    key/value head, QROWS = 16 rows each (rows past SQ are zeros: the copy engine fills
//    them): the cache of a key/value head is read once per 4 query heads, not once per head;
//  - the key tiles of each row tile are split across blocks (flash-decoding): `splits`
//    blocks of `per` tiles each, from the shape, so that the grid is about BLOCKS blocks
//    (two per SM of an H100/H200) or, where the row tiles alone fill it, one split each;
//  - each block walks its keys BN at a time with the copy engine (`pipelined(STAGES)`: the
//    tiles of the next STAGES - 1 steps load while a step computes), keeps the online
//    softmax of attention.co.cpp in registers, and writes its O (not divided by the row
//    sums) with the row maxima and row sums to a workspace;
//  - a second parallel step combines the splits of each row in order (deterministic) into
//    out, in the input type.
// A query i of a causal block masks the keys past i + SK - SQ (mma.mask.causal with the
// rows' period QROWS: row r of the tile is query r % QROWS of its head).
// Needs -arch=sm_90a on cuda; the cpu and factor targets run it with portable tensor-core
// arithmetic. Tile sizes and the grid are macros (BN, STAGES, BLOCKS), so a sweep builds
// variants (bench/bench_attention.py --function decode).
//
//   croktilec -t cuda -arch=sm_90a samples/attention/decode.co.cpp -o decode && ./decode
//   croktilec -t cpu -DCAUSAL=1 -DELEM=bf16 samples/attention/decode.co.cpp -o decode && ./decode
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
// keys per step and steps in flight: 3 stages of 64 keys (K and V, 32 KiB a stage at HDIM
// 128) and the queries take 112 KiB of shared memory, so two blocks share an SM
#ifndef BN
#define BN 64
#endif
#ifndef STAGES
#define STAGES 3
#endif
// query heads per tile (a divisor of HQ / HKV), and the queries of each
#ifndef HEADS
#define HEADS 4
#endif
#define QROWS (64 / HEADS)
// the blocks the key split aims at: 2 per SM of an H100 / H200 (132 SMs)
#ifndef BLOCKS
#define BLOCKS 264
#endif
// the fewest key tiles a split walks: a short cache is split less (a block's fixed costs,
// and the combine's reads, against the tiles it walks)
#ifndef MINPER
#define MINPER 1
#endif
// a tile of one head: ROWS rows from row tile R, the 64 columns of part P
#define TILE(x, b, h, ROWS, R, P) x.subspan(1, 1, ROWS, 64).at(b, h, R, P)
// -DKEYS_ARG=1: k and v are caches of CAP rows whose first SK hold the keys, SK an argument
// after scale (a decode step attends over its cache in place, samples/llama/); their tiles
// are taken from the first SK rows, so that rows past them read as zeros, as past a tensor's end
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

// the combine's rescaling (tileflow code has no exp of its own), in the separate source
// form that every target builds
__cok__ {
  extern "C" float decode_exp(float x) { return expf(x); }
} // end of __cok__

__co__ auto decode(ELEM [B, HQ, SQ, HDIM] q, ELEM [B, HKV, KV_ROWS, HDIM] k, ELEM [B, HKV, KV_ROWS, HDIM] v,
                   float scale KEYS_PARAM) {
  assert(HQ % HKV == 0, "decode: the query heads must be a multiple of the key/value heads");
  assert((HQ / HKV) % HEADS == 0, "decode: the query heads of a key/value head must be a multiple of HEADS");
  assert(!CAUSAL || SK >= SQ, "decode: causal attention needs at least as many keys as queries");
  // the key tiles of a row tile split across blocks: the whole number of splits per row
  // tile that keeps the grid within BLOCKS (a full wave, not a wave and a few blocks), at
  // least one tile each, no split left empty (`splits` of `per` tiles, the last shorter)
  int tiles0 = cdiv(SK, BN);
  int mtiles = cdiv(SQ, QROWS);
  int rowtiles = B * (HQ / HEADS) * mtiles;
  int want = rowtiles < BLOCKS ? BLOCKS / rowtiles : 1;
  int even = cdiv(tiles0, want < tiles0 ? want : tiles0);
  int per = even < MINPER ? MINPER : even;
  int splits = cdiv(tiles0, per);
  ELEM [B, HQ, SQ, HDIM] out;
  // per split: each row's O (f32, not divided by its sum), and its row maximum (column 0)
  // and row sum (column 8)
  f32 [B, HQ, splits, SQ, HDIM] part;
  f32 [B, HQ, splits, SQ, 16] stat;
  int group = HQ / HKV;   // query heads per key/value head (grouped-query attention)
  // block (b, hg, m, sp): query heads hg * HEADS.. (one key/value head's), queries m * QROWS..,
  // the key tiles of split sp
  parallel {b, hg, m, sp} by [B, HQ / HEADS, mtiles, splits] : block {
    int hk = hg * HEADS / group;
    // causal: the key tiles up to the last query's last key; a split past them (only where
    // several row tiles have different ends) walks one tile, all of it masked
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
      s = mma.fill.f32 0.0f;    // the scores of a step, 64 rows x BN keys
      o0 = mma.fill.f32 0.0f;   // the output, 64 x 64 (and o1: columns 64..127)
      mx = mma.row.fill.f32 -1.0e30f;   // the running row maximum of the scores
      sum = mma.row.fill.f32 0.0f;      // the running row sum of exp(scale (s - mx))
      alpha = mma.row.fill.f32 0.0f;    // the rescaling of a step
      foreach j : pipelined(STAGES) {
        k0 = tma.copy.async.swiz<128> KV_TILE(k, b, hk, BN, first + j, 0) => shared;
        v0 = tma.copy.async.swiz<128> KV_TILE(v, b, hk, BN, first + j, 0) => shared;
#if HDIM == 128
        k1 = tma.copy.async.swiz<128> KV_TILE(k, b, hk, BN, first + j, 1) => shared;
        v1 = tma.copy.async.swiz<128> KV_TILE(v, b, hk, BN, first + j, 1) => shared;
#endif
        // (the queries are waited for here, not before the loop: the first key tiles load
        // while they land)
        wait q0;
#if HDIM == 128
        wait q1;
#endif
        parallel g by 1 : group-4 {
          mma.fill s, 0.0f;
          // the 4 heads' query rows, one after the other: one 64-row A operand
          qa = mma.load.swiz<128> q0.data.span_as([64, 64]);
          kb = mma.load.swiz<128> k0.data;
          mma.row.row s, qa, kb;
#if HDIM == 128
          qa1 = mma.load.swiz<128> q1.data.span_as([64, 64]);
          kb1 = mma.load.swiz<128> k1.data;
          mma.row.row s, qa1, kb1;
#endif
          // the last tile's keys past SK are zeros: no weight
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
      // the partial result of the block's rows: O (not divided by the row sums), and the
      // row maximum and row sum, each as the 8 columns of an accumulator (a row vector's
      // values leave through one); the rows of queries past SQ are not written
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
      // both stores in flight together
      po = tma.copy.async os => part.subspan(1, HEADS, 1, QROWS, HDIM).at(b, hg, sp, m, 0);
      ps = tma.copy.async ss => stat.subspan(1, HEADS, 1, QROWS, 16).at(b, hg, sp, m, 0);
      wait po, ps;
    }
  }
  parallel {b, h, i} by [B, HQ, SQ] : block {
    parallel d by HDIM : thread {
      // the splits in order, in one pass: the running maximum of their row maxima, the
      // sums and outputs rescaled to it as it grows (an empty split, maximum -1e30 and
      // sum 0, adds nothing)
      mutable float top = -1.0e30f;
      mutable float acc = 0.0f;
      mutable float den = 0.0f;
      foreach s in [splits] {
        float x = stat.at(b, h, s, i, 0);
        float l = stat.at(b, h, s, i, 8);
        float o = part.at(b, h, s, i, d);
        float now = x > top ? x : top;
        mutable float old = call decode_exp(scale * (top - now));
        mutable float w = call decode_exp(scale * (x - now));
        den = den * old + w * l;
        acc = acc * old + w * o;
        top = now;
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
  auto o = decode(q.view(), k.view(), v.view(), (float)scale KEYS_VALUE((int)SK));
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
