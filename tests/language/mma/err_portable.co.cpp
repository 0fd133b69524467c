// On opencl a fragment that each instance of an inner level holds a copy of needs a
// constant count of instances (the copies are private arrays). (A multiply that no
// instruction does is an error of the language, on every target: err_types.co.cpp.)
// compile-flags: -t opencl

__co__ void run_time_count(f16 [16, 16] lhs, f16 [16, 8] rhs, f32 [16, 8] out, int n) {
  parallel p by 1 : block {
    mc = mma.fill.f32 0.0f; // expect-error: on target 'opencl' fragment 'mc' needs a copy for each instance of 'g', so their count must be a constant
    parallel g by n : group {
      ma = mma.load lhs;
      mb = mma.load rhs;
      mma.row.col mc, ma, mb;
    }
    parallel g by 1 : group {
      mma.store mc, out;
    }
  }
}
