// Making a fragment again (issue #36): `x = mma.fill ...;` and `x = mma.load ...;` rebind
// a fragment that the name already is, as a fill may fill a loaded fragment again. So a
// fragment made by `mma.fill` may then be loaded (an accumulator that starts from C in
// memory, converted to the fragment's type), an accumulator may be made by `mma.load`
// alone, an operand may be loaded again after its multiply (a column-major A: the reload
// reads it transposed as the first load does), and an accumulator that no multiply
// computes is only filled and stored. Run and checked in main against products computed
// there (integer values: exact).
// cuda-arch: sm_80

// c + a b, the accumulator filled, then loaded from c
__co__ auto fill_then_load(f16 [16, 16] a, f16 [16, 8] b, f32 [16, 8] c) {
  f32 [16, 8] out;
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      mc = mma.load c;
      ma = mma.load a;
      mb = mma.load b;
      mma.row.col mc, ma, mb;
      mma.store mc, out;
    }
  }
  return out;
}

// c + a b again, c given as f16: loaded into the f32 accumulator, converted (as a store
// converts into its destination)
__co__ auto load_converted(f16 [16, 16] a, f16 [16, 8] b, f16 [16, 8] c) {
  f32 [16, 8] out;
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      mc = mma.load c;
      ma = mma.load a;
      mb = mma.load b;
      mma.row.col mc, ma, mb;
      mma.store mc, out;
    }
  }
  return out;
}

// c + a b + a2 b, the accumulator made by mma.load; A given column-major (K x M) and
// loaded again, for the next step, after the multiply that reads it
__co__ auto load_twice(f16 [16, 16] at, f16 [16, 16] a2t, f16 [16, 8] b, f32 [16, 8] c) {
  f32 [16, 8] out;
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.load c;
      ma = mma.load at;
      mb = mma.load b;
      foreach k in 2 {
        mma.col.col mc, ma, mb;
        ma = mma.load a2t;   // the next step's A (the last step's is not used)
      }
      mma.store mc, out;
    }
  }
  return out;
}

// 3 everywhere: an accumulator that no multiply computes (filled, updated, stored)
__co__ auto fill_only() {
  f32 [16, 8] out;
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 1.0f;
      mc += 2.0f;
      mma.store mc, out;
    }
  }
  return out;
}

int main() {
  auto a = choreo::make_spandata<choreo::f16>(16, 16);
  auto at = choreo::make_spandata<choreo::f16>(16, 16);
  auto a2t = choreo::make_spandata<choreo::f16>(16, 16);
  auto b = choreo::make_spandata<choreo::f16>(16, 8);
  auto c = choreo::make_spandata<choreo::f32>(16, 8);
  auto c16 = choreo::make_spandata<choreo::f16>(16, 8);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      a[i][j] = (float)((i + 2 * j) % 5 - 2);
      at[j][i] = (float)((2 * i + j) % 7 - 3);    // A = at^T
      a2t[j][i] = (float)((i + 2 * j) % 5 - 2);      // A2 = a2t^T
    }
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      b[i][j] = (float)((3 * i + j) % 7 - 3);
      c[i][j] = (float)(i - j);
      c16[i][j] = (float)(i - j);
    }
  auto r0 = fill_then_load(a.view(), b.view(), c.view());
  auto r3 = load_converted(a.view(), b.view(), c16.view());
  auto r1 = load_twice(at.view(), a2t.view(), b.view(), c.view());
  auto r2 = fill_only();
  bool ok0 = true, ok1 = true, ok2 = true, ok3 = true;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      float p = 0, q = 0;
      for (int k = 0; k < 16; ++k) {
        p += (float)a[i][k] * (float)b[k][j];
        q += ((float)at[k][i] + (float)a2t[k][i]) * (float)b[k][j];
      }
      ok0 = ok0 && r0[i][j] == c[i][j] + p;
      ok3 = ok3 && r3[i][j] == c[i][j] + p;
      ok1 = ok1 && r1[i][j] == c[i][j] + q;
      ok2 = ok2 && r2[i][j] == 3.0f;
    }
  std::cout << "fill_then_load " << (ok0 ? "ok" : "differs") << "\n";
  std::cout << "load_converted " << (ok3 ? "ok" : "differs") << "\n";
  std::cout << "load_twice " << (ok1 ? "ok" : "differs") << "\n";
  std::cout << "fill_only " << (ok2 ? "ok" : "differs") << "\n";
}
// expect-output: fill_then_load ok
// expect-output: load_converted ok
// expect-output: load_twice ok
// expect-output: fill_only ok
