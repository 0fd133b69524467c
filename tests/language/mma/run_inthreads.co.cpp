// A block whose first warp alone loads the tiles (a synchronous `inthreads` inside the k
// loop) that all four warps then multiply: the block waits at the end of the `inthreads`
// block (thread-masking.md: "all threads are forced synchronized"), and at its start
// from the second iteration on (the loads must not overwrite tiles that other warps
// still read). Without those barriers the cpu and factor targets, which run the warps as
// threads here, opencl (a work-item each) and a GPU compute wrong products. Also a plain
// (non-mma) level whose instance 0 fills shared data the others read. Run and checked in
// main.
// cuda-arch: sm_90a

#define M 64
#define N 64
#define K 128

__co__ auto mm_one_loader(f16 [M, K] lhs, f16 [N, K] rhs) {
  f32 [M, N] out;
  parallel {bm, bn} by [2, 2] : block {
    parallel {wm, wn} by [2, 2] : group {
      mc = mma.fill.f32 0.0f;
      foreach k in [K / 16] {
        shared f16 [lhs.span(0) / #bm, lhs.span(1) / #k] ls;
        shared f16 [rhs.span(0) / #bn, rhs.span(1) / #k] rs;
        inthreads (wm == 0 && wn == 0) {
          tma.copy lhs.chunkat(bm, k) => ls;
          tma.copy rhs.chunkat(bn, k) => rs;
        }
        ma = mma.load ls.chunkat(wm, _);
        mb = mma.load rs.chunkat(wn, _);
        mma.row.row mc, ma, mb;
      }
      mma.store mc, out.chunkat(bm#wm, bn#wn);
    }
  }
  return out;
}

// out[b][t] = the sum of row b of a (plus r for each element) + t + r, for the last r:
// instance 31 of the 32 writes the row into shared memory, each instance then reads all
// of it.
__co__ auto row_sums(s32 [4, 32] a) {
  s32 [4, 32] out;
  parallel b by 4 : block {
    shared s32 [1, 32] row;
    local s32 [1, 32] mine;
    parallel t by 32 : thread {
      foreach r in [2] {
        inthreads (t == 31) {
          foreach j in [32]
            row.at(0, j) = a.at(b, j) + r;
        }
        mine.at(0, t) = 0;
        foreach j in [32]
          mine.at(0, t) = mine.at(0, t) + row.at(0, j);
        out.at(b, t) = mine.at(0, t) + t + r;
      }
    }
  }
  return out;
}

template <typename T>
void integers(T& data, int seed) {
  for (size_t i = 0; i < data.shape()[0]; ++i)
    for (size_t j = 0; j < data.shape()[1]; ++j) data[i][j] = (float)((int)((i * 7 + j * 3 + seed) % 9) - 4);
}

int main() {
  auto a = choreo::make_spandata<choreo::f16>(M, K);
  auto b = choreo::make_spandata<choreo::f16>(N, K);
  integers(a, 1);
  integers(b, 2);
  auto c = mm_one_loader(a.view(), b.view());
  bool ok = true;
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) {
      float ref = 0;
      for (size_t k = 0; k < K; ++k) ref += (float)a[i][k] * (float)b[j][k];
      ok = ok && c[i][j] == ref;
    }
  std::cout << "one_loader_f16_f32 " << (ok ? "ok" : "differs") << "\n";

  auto x = choreo::make_spandata<choreo::s32>(4, 32);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 32; ++j) x[i][j] = i * 100 + j;
  auto s = row_sums(x.view());
  ok = true;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 32; ++j) ok = ok && s[i][j] == i * 3200 + 496 + 32 + j + 1;
  std::cout << "row_sums " << (ok ? "ok" : "differs") << "\n";
}

// expect-output: one_loader_f16_f32 ok
// expect-output: row_sums ok
