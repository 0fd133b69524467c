// The portable targets compute what the tensor-core instructions compute: a multiply that
// no instruction does is an error at its line (as on cuda), and on opencl a fragment that
// each instance of an inner level holds a copy of needs a constant count of instances
// (the copies are private arrays).
// compile-flags: -t opencl

__co__ void no_instruction(bf16 [16, 16] lhs, bf16 [16, 8] rhs, f16 [16, 8] out) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f16 0.0f;
      ma = mma.load lhs;
      mb = mma.load rhs;
      mma.row.col mc, ma, mb; // expect-error: no tensor-core instruction multiplies a 16 x 8 x 16 tile of bf16 x bf16 -> f16
      mma.store mc, out;
    }
  }
}

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
