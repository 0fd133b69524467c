// Element-wise updates of fragments in the reference's forms: `mc += v;` (also written
// `mc + = v;`, as the reference lexes `+=` as two tokens), `-=`, `*=`, `/=`, and the same
// on a fragment of a fragment array (`mcs[1][0] += v;`); and of spanned data
// (`l.data.at(i) - = 1;`). Run and checked in main.
// cuda-arch: sm_80

// ((a x b + 1) * 2 - 0.5) / 4
__co__ auto frag_ops(f16 [16, 16] a, f16 [16, 16] b) {
  f32 [16, 16] out;
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      ma = mma.load a;
      mb = mma.load b;
      mma.row.col mc, ma, mb;
      mc += 1.0f;
      mc * = 2.0f;
      mc -= 0.5f;
      mc /= 4.0f;
      mma.store mc, out;
    }
  }
  return out;
}

// 2 * (a x b) + 3, in the fragment mcs[1][0] of an array
__co__ auto frag_array_ops(f16 [16, 16] a, f16 [16, 16] b) {
  f32 [16, 16] out;
  parallel p by 1 : block {
    frag mcs[2][1] {0.0};
    parallel g by 1 : group {
      ma = mma.load a;
      mb = mma.load b;
      mma.fill.f32 mcs[1][0], 0.0f;
      mma.row.col mcs[1][0], ma, mb;
      mcs[1][0] *= 2.0f;
      mcs[1][0] + = 3.0f;
      mma.store mcs[1][0], out;
    }
  }
  return out;
}

// (x + 10 - 1) % 4
__co__ auto data_ops(s32 [8] x) {
  s32 [8] y;
  parallel p by 1 {
    l = dma.copy x => local;
    foreach i in [8] {
      l.data.at(i) += 10;
      l.data.at(i) - = 1;
      l.data.at(i) % = 4;
    }
    dma.copy l.data => y;
  }
  return y;
}

int main() {
  auto a = choreo::make_spandata<choreo::f16>(16, 16);
  auto b = choreo::make_spandata<choreo::f16>(16, 16);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      a[i][j] = (float)((i + 2 * j) % 5 - 2);
      b[i][j] = (float)((3 * i + j) % 7 - 3);
    }
  auto c0 = frag_ops(a.view(), b.view());
  auto c1 = frag_array_ops(a.view(), b.view());
  bool ok0 = true, ok1 = true;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      float p = 0;
      for (int k = 0; k < 16; ++k) p += (float)a[i][k] * (float)b[k][j];
      ok0 = ok0 && c0[i][j] == ((p + 1) * 2 - 0.5f) / 4;
      ok1 = ok1 && c1[i][j] == 2 * p + 3;
    }
  std::cout << "fragment_updates " << (ok0 ? "ok" : "differs") << "\n";
  std::cout << "fragment_array_updates " << (ok1 ? "ok" : "differs") << "\n";
  auto x = choreo::make_spandata<choreo::s32>(8);
  for (int i = 0; i < 8; ++i) x[i] = i * 3;
  auto y = data_ops(x.view());
  bool ok = true;
  for (int i = 0; i < 8; ++i) ok = ok && y[i] == (i * 3 + 9) % 4;
  std::cout << "data_updates " << (ok ? "ok" : "differs") << "\n";
}

// expect-output: fragment_updates ok
// expect-output: fragment_array_updates ok
// expect-output: data_updates ok
