// ele_add: the element-wise addition of spec 1, with its device kernel in spec 1's separate
// source form, `__cok__ { extern "C" ... }`, so that it builds on every target (cpu, cuda,
// opencl, factor). Shows the three parts of a program (device kernel, tileflow function,
// host main), a `parallel` launch, `with`/`foreach` tiling, `chunkat`, `dma.copy => local`
// and a `call`; no #include lines: croktile.h, included first, provides what main uses.

// Device Program
__cok__ {
  extern "C" void kernel(int * a, int * b, int * c, int n) {
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
  }
} // end of __cok__

// Tileflow Program
__co__ s32 [6, 17, 128] ele_add(s32 [6, 17, 128] lhs, s32 [6, 17, 128] rhs) {
  s32 [lhs.span] output; // Use same shape as lhs

  // first `parallel` indicates the kernel launch
  parallel p by 6 {
    with index in [17, 4] { // Tiling factors
      foreach index {
        lhs_load = dma.copy lhs.chunkat(p, index) => local;
        rhs_load = dma.copy rhs.chunkat(p, index) => local;

        local s32 [lhs_load.span] l1_out;

        // Call kernel with loaded data
        call kernel(lhs_load.data, rhs_load.data, l1_out, |lhs_load.span|);

        // Store result back to output
        dma.copy l1_out => output.chunkat(p, index);
      }
    }
  }
  return output;
}

// Host Program
int main() {
  // Define data arrays (varied values, so that a misplaced element shows)
  static croktile::s32 a[6][17][128];
  static croktile::s32 b[6][17][128];
  for (int i = 0; i < 6 * 17 * 128; ++i) {
    (&a[0][0][0])[i] = i % 1000 - 500;
    (&b[0][0][0])[i] = (i * 7) % 333;
  }

  // Call Croktile function (data movement and device kernel execution)
  auto res = ele_add(croktile::make_spanview<3>(&a[0][0][0], {6, 17, 128}),
                     croktile::make_spanview<3>(&b[0][0][0], {6, 17, 128}));

  // CROKTILE_DUMP=1: every result element (the tests compare the targets with it)
  if (std::getenv("CROKTILE_DUMP"))
    for (auto v : res) std::cout << v << '\n';

  // Verification: check correctness of results
  for (size_t i = 0; i < res.shape()[0]; ++i)
    for (size_t j = 0; j < res.shape()[1]; ++j)
      for (size_t k = 0; k < res.shape()[2]; ++k)
        if (a[i][j][k] + b[i][j][k] != res[i][j][k]) {
          std::cerr << "result does not match.\n";
          abort();
        }

  std::cout << "Test Passed\n" << std::endl;
}
