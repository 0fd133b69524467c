// TMA copies: a double buffer of tma.copy.async futures (tma.any, wait, swap), and
// 128-byte swizzled tiles (tma.copy.swiz<128>) read by mma.load.swiz<128>, a warp group's
// GEMM of symbolic shape whose result leaves through a shared tile and tma.copy; run and
// checked in main. On sm_90a the copies are the copy engine's (cuda_tma.py).
// cuda-arch: sm_90a

// The m16n8k16 product of one 16 x 64 row band of lhs and a 64 x 16 band of rhs (given
// N x K), through swizzled shared tiles of 64 f16 (128 bytes) a row.
__co__ auto mm_swizzled(f16 [32, 64] lhs, f16 [32, 64] rhs) {
  f32 [32, 32] out;
  parallel {bm, bn} by [2, 2] : block {
    shared f16 [16, 64] ls;
    shared f16 [16, 64] rs;
    tma.copy.swiz<128> lhs.chunkat(bm, _) => ls;
    tma.copy.swiz<128> rhs.chunkat(bn, _) => rs;
    parallel g by 2 : group {
      mc = mma.fill.f32 0.0f;
      foreach w in 4 {
        ma = mma.load.swiz<128> ls.chunkat(_, w);
        mb = mma.load.swiz<128> rs.chunkat(g, w);
        mma.row.row mc, ma, mb;
      }
      mma.store mc, out.chunkat(bm, bn#g);
    }
  }
  return out;
}

// out[.., k, ..] = l + r, the tiles of step k loaded while step k - 1 is added.
__co__ auto add_pipelined(f32 [4, 8, 32] l, f32 [4, 8, 32] r) {
  f32 [l.span] output;
  parallel p by 2 : block {
    with k in [8] {
      l0 = tma.copy.async l.chunkat(_, k, p) => shared;
      r0 = tma.copy.async r.chunkat(_, k, p) => shared;
      l1 = tma.any;
      r1 = tma.any;
      shared f32 [l0.span] sum;
      foreach k(1:) {
        l1 = tma.copy.async l.chunkat(_, k, p) => shared;
        r1 = tma.copy.async r.chunkat(_, k, p) => shared;
        wait l0, r0;
        foreach i in [l0.span]
          sum.at(i) = l0.data.at(i) + r0.data.at(i);
        tma.copy sum => output.chunkat(_, k - 1, p);
        swap l0, l1;
        swap r0, r1;
      }
      wait l0, r0;
      foreach i in [l0.span]
        sum.at(i) = l0.data.at(i) + r0.data.at(i);
      tma.copy sum => output.chunkat(_, k(-1), p);
    }
  }
  return output;
}

// out = 2 l, row by row, each block's rows one after another through one shared row: a
// row leaves by an asynchronous store (its future waited only at the end) while the next
// row is loaded into the same shared row, which must wait until the copy engine has read it.
__co__ auto twice_stored_async(f32 [8, 64] l) {
  f32 [l.span] output;
  parallel p by 2 : block {
    shared f32 [1, 64] row;
    st = tma.any;
    foreach i in [4] {
      tma.copy l.subspan(1, 64).at(p * 4 + i, 0) => row;
      foreach j in [64]
        row.at(0, j) = row.at(0, j) * 2.0f;
      wait st;   // the store of the previous row (the load above already waited for its read)
      st = tma.copy.async row => output.subspan(1, 64).at(p * 4 + i, 0);
    }
    wait st;
  }
  return output;
}

// C = A B^T for shapes the caller gives: 64 x 64 tiles of both operands, a warp group's
// wgmma over the K steps, the result stored through a shared tile by tma.copy.
__co__ auto gemm_tma(f16 [M, K] lhs, f16 [N, K] rhs) {
  f32 [M, N] out;
  parallel {bm, bn} by [M / 64, N / 64] : block {
    shared f16 [64, 64] ls;
    shared f16 [64, 64] rs;
    shared f32 [64, 64] os;
    mc = mma.fill.f32 0.0f;
    foreach kk in [K / 64] {
      tma.copy.swiz<128> lhs.chunkat(bm, kk) => ls;
      tma.copy.swiz<128> rhs.chunkat(bn, kk) => rs;
      foreach w in 4 {
        parallel g by 1 : group-4 {
          ma = mma.load.swiz<128> ls.chunkat(_, w);
          mb = mma.load.swiz<128> rs.chunkat(_, w);
          mma.row.row mc, ma, mb;
        }
      }
    }
    mma.store mc, os;
    tma.copy os => out.chunkat(bm, bn);
  }
  return out;
}

int main() {
  auto a = choreo::make_spandata<choreo::f16>(32, 64);
  auto b = choreo::make_spandata<choreo::f16>(32, 64);
  a.fill_random(-1.0f, 1.0f);
  b.fill_random(-1.0f, 1.0f);
  auto c = mm_swizzled(a.view(), b.view());
  bool ok = true;
  for (size_t i = 0; i < 32; ++i)
    for (size_t j = 0; j < 32; ++j) {
      double ref = 0;
      for (size_t k = 0; k < 64; ++k) ref += (double)(float)a[i][k] * (float)b[j][k];
      ok = ok && std::fabs(c[i][j] - ref) <= 1e-5 * (1 + std::fabs(ref));
    }
  std::cout << "swizzled_f16_f32 " << (ok ? "ok" : "differs") << "\n";

  auto l = choreo::make_spandata<choreo::f32>(4, 8, 32);
  auto r = choreo::make_spandata<choreo::f32>(4, 8, 32);
  l.fill_random(-10.0f, 10.0f);
  r.fill_random(-10.0f, 10.0f);
  auto s = add_pipelined(l.view(), r.view());
  ok = true;
  for (size_t i = 0; i < 4; ++i)
    for (size_t j = 0; j < 8; ++j)
      for (size_t k = 0; k < 32; ++k) ok = ok && s[i][j][k] == l[i][j][k] + r[i][j][k];
  std::cout << "tma_pipelined_add " << (ok ? "ok" : "differs") << "\n";

  // two arrays, then the first again (the cuda target reuses the maps it encoded)
  auto tl = choreo::make_spandata<choreo::f32>(8, 64);
  auto tl2 = choreo::make_spandata<choreo::f32>(8, 64);
  tl.fill_random(-10.0f, 10.0f);
  tl2.fill_random(-10.0f, 10.0f);
  ok = true;
  for (auto* in : {&tl, &tl2, &tl}) {
    auto tw = twice_stored_async(in->view());
    for (size_t i = 0; i < 8; ++i)
      for (size_t j = 0; j < 64; ++j) ok = ok && tw[i][j] == 2 * (*in)[i][j];
  }
  std::cout << "tma_async_store " << (ok ? "ok" : "differs") << "\n";

  const size_t M = 128, N = 192, K = 256;
  auto ga = choreo::make_spandata<choreo::f16>(M, K);
  auto gb = choreo::make_spandata<choreo::f16>(N, K);
  ga.fill_random(-1.0f, 1.0f);
  gb.fill_random(-1.0f, 1.0f);
  auto gc = gemm_tma(ga.view(), gb.view());
  ok = true;
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) {
      double ref = 0;
      for (size_t k = 0; k < K; ++k) ref += (double)(float)ga[i][k] * (float)gb[j][k];
      ok = ok && std::fabs(gc[i][j] - ref) <= 1e-4 * (1 + std::fabs(ref));
    }
  std::cout << "gemm_tma_symbolic " << (ok ? "ok" : "differs") << "\n";
}

// expect-output: swizzled_f16_f32 ok
// expect-output: tma_pipelined_add ok
// expect-output: tma_async_store ok
// expect-output: gemm_tma_symbolic ok
