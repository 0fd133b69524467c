// A spec-language program: the corpus's runner itself is checked with it.
__cok__ { extern "C" void add_row(int* a, int* b, int* c, int n) { for (int i = 0; i < n; ++i) c[i] = a[i] + b[i]; } }
__co__ s32 [4, 8] add(s32 [4, 8] a, s32 [4, 8] b) {
  s32 [a.span] out;
  parallel p by 4 {
    la = dma.copy a.chunkat(p, _) => local;
    lb = dma.copy b.chunkat(p, _) => local;
    local s32 [la.span] c;
    call add_row(la.data, lb.data, c, 8);
    dma.copy c => out.chunkat(p, _);
  }
  return out;
}

int main() {
  int a[32], b[32];
  for (int i = 0; i < 32; ++i) { a[i] = i; b[i] = 100 * i; }
  auto r = add(choreo::make_spanview<2>(a, {4, 8}), choreo::make_spanview<2>(b, {4, 8}));
  std::cout << r[0][0] << " " << r[1][2] << " " << r[3][7] << "\n";
}
// expect-output: 0 1010 3131
