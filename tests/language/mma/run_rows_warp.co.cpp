// The row operations on a warp's (mma.sync) accumulators, which the portable targets run
// (on cuda they are an error for now: err_rows_targets.co.cpp): row vectors made from a
// fragment, from a value and from each other, each statement's effect checked in main.
// cuda-arch: none: the cuda target runs row operations on warp-group accumulators only
// not-on-opencl: the row operations are not written for OpenCL C yet (err_rows_opencl)

__co__ auto rows(f16 [16, 16] a, f16 [16, 8] b) {
  f32 [16, 8] out;
  parallel p by 1 : block {
    c = mma.fill.f32 0.0f;
    parallel g by 1 : group {
      ma = mma.load a;
      mb = mma.load b;
      mma.row.col c, ma, mb;
      mx = mma.row.max c;          // each row's maximum
      mma.row.max mx, 0.0f;        // at least 0
      l = mma.row.fill.f32 1.0f;
      mma.row.sum l, c;            // 1 + each row's sum
      f = mma.row.fill.f32 0.0f;
      mma.row.fill f, l;
      mma.row.scale f, 2.0f;       // 2 + 2 sum
      mma.row.sum f, mx;           // 2 + 2 sum + max(max, 0)
      mma.exp c, mx, 0.5f;         // exp((c - max(max, 0)) / 2)
      mma.row.scale c, f;
      mma.mask.causal c, 4, 2;     // -inf where 2 + j > 4 + i
    }
    mma.store c, out;
  }
  return out;
}

int main() {
  auto a = choreo::make_spandata<choreo::f16>(16, 16);
  auto b = choreo::make_spandata<choreo::f16>(16, 8);
  a.fill_random(-1.0f, 1.0f);
  b.fill_random(-1.0f, 1.0f);
  auto out = rows(a.view(), b.view());
  bool ok = true;
  for (int i = 0; i < 16; ++i) {
    double c[8], top = -1e300, sum = 0;
    for (int j = 0; j < 8; ++j) {
      c[j] = 0;
      for (int k = 0; k < 16; ++k) c[j] += (double)(float)a[i][k] * (float)b[k][j];
      top = std::fmax(top, c[j]);
      sum += c[j];
    }
    top = std::fmax(top, 0.0);
    const double f = 2 + 2 * (1 + sum) - 2 + top;
    for (int j = 0; j < 8; ++j) {
      const double ref = 2 + j > 4 + i ? -INFINITY : std::exp((c[j] - top) / 2) * f;
      ok = ok && (std::isinf(ref) ? out[i][j] == ref : std::fabs(out[i][j] - ref) < 1e-4 * (1 + std::fabs(ref)));
    }
  }
  std::cout << "rows " << (ok ? "ok" : "differs") << "\n";
}

// expect-output: rows ok
