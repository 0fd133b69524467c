// A `__co__` function that writes its parameter in place, by an element store and by an
// mma.store (no DMA, no call): the device targets' host form copies the parameter back
// to the caller's array after the launch (it copied back only those a DMA or a call
// wrote). Expected values by hand: out[i] = 3 * i; c[i][j] = 16 (a product of all-ones).

__co__ void scale_into(s32 [8] out) {
  parallel p by 2 {
    foreach i in [4]
      out.at(p * 4 + i) = (p * 4 + i) * 3;
  }
}

__co__ void ones_product(f16 [16, 16] a, f16 [16, 16] b, f32 [16, 16] c) {
  parallel p by 1 : block {
    parallel w by 1 : group {
      mc = mma.fill.f32 0.0f;
      ma = mma.load a;
      mb = mma.load b;
      mma.row.row mc, ma, mb;
      mma.store mc, c;
    }
  }
}

int main() {
  auto out = choreo::make_spandata<choreo::s32>(8);
  out.fill(0);
  scale_into(out.view());
  std::cout << "stores";
  for (int i = 0; i < 8; ++i) std::cout << " " << out[i];
  std::cout << "\n";
  // expect-output: stores 0 3 6 9 12 15 18 21
  auto a = choreo::make_spandata<choreo::f16>(16, 16);
  auto b = choreo::make_spandata<choreo::f16>(16, 16);
  auto c = choreo::make_spandata<choreo::f32>(16, 16);
  a.fill(1.0f);
  b.fill(1.0f);
  c.fill(0.0f);
  ones_product(a.view(), b.view(), c.view());
  std::cout << "mma_store " << c[0][0] << " " << c[15][15] << "\n";
  // expect-output: mma_store 16 16
}
