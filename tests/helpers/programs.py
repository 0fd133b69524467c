"""Small programs that tests in several folders build."""
from __future__ import annotations

# The program of the issue: a __device__ kernel, a __co__ function and a host main.
ADD_KERNEL = r"""
__device__ void kernel(int *a, int *b, int *c, int n) { for (int i = 0; i < n; ++i) c[i] = a[i] + b[i]; }
__co__ s32 [6, 16] add(s32 [6, 16] lhs, s32 [6, 16] rhs) {
  s32 [lhs.span] out;
  parallel p by 6 {
    a = dma.copy lhs.chunkat(p, _) => local;
    b = dma.copy rhs.chunkat(p, _) => local;
    local s32 [a.span] c;
    call kernel(a.data, b.data, c, |a.span|);
    dma.copy c => out.chunkat(p, _);
  }
  return out;
}
""".lstrip("\n")

ADD_MAIN = r"""
int main() { int a[6][16], b[6][16]; for (int i=0;i<96;++i){(&a[0][0])[i]=i;(&b[0][0])[i]=2*i;}
  auto r = add(choreo::make_spanview<2>(&a[0][0], {6,16}), choreo::make_spanview<2>(&b[0][0], {6,16}));
  for (int i=0;i<6;++i) for(int j=0;j<16;++j) if (r[i][j] != a[i][j]+b[i][j]) { std::cout << "FAIL\n"; return 1; }
  std::cout << "Test Passed\n"; }
""".lstrip("\n")

ADD_PROGRAM = "#include <iostream>\n" + ADD_KERNEL + ADD_MAIN

# The line of the __co__ function's parameters (shape checks point here) in ADD_PROGRAM.
ADD_CO_LINE = ADD_PROGRAM.splitlines().index(
    next(l for l in ADD_PROGRAM.splitlines() if l.startswith("__co__"))) + 1
# The line of the __device__ kernel in ADD_PROGRAM.
KERNEL_LINE = next(i for i, l in enumerate(ADD_PROGRAM.splitlines(), 1) if l.startswith("__device__"))
