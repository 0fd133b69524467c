// ele_add in the __cok__ form of spec 1 ("Separate Source Compilation Model"):
// the device function sits in `__cok__ { extern "C" ... }`, so it builds for the
// opencl target (the block becomes OpenCL C) as well as for cpu. The tileflow
// function and main are those of samples/ele_add.co.cpp. With CROKTILE_DUMP set,
// main prints every result element (the tests compare cpu and opencl with it).

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
  static choreo::s32 a[6][17][128];
  static choreo::s32 b[6][17][128];
  for (int i = 0; i < 6 * 17 * 128; ++i) {
    (&a[0][0][0])[i] = i % 1000 - 500;
    (&b[0][0][0])[i] = (i * 7) % 333;
  }

  // Call Choreo function (data movement and device kernel execution)
  auto res = ele_add(choreo::make_spanview<3>(&a[0][0][0], {6, 17, 128}),
                     choreo::make_spanview<3>(&b[0][0][0], {6, 17, 128}));

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
