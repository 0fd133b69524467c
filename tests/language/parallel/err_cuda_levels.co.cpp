// What level annotations need of a cuda block (the reference's GPU back-end
// checks, tests/check/thread_dimension_check.co): rules of the cuda target only; on cpu,
// factor and opencl these levels are loops (ok_level_threads.co.cpp).
// compile-flags: -t cuda
__co__ void groups() {
  parallel by 1 : block {
    parallel p by 4 : group-4 {
      parallel r by 32 : thread;       // expect-error: the threads of a 'group-4' level must number a multiple of 128 on target 'cuda', not 32
    }
  }
  parallel by 1 : block {
    parallel p by 2 : group-4 {
      parallel q by 4 : group;         // expect-error: a 'group' level directly inside a 'group-4' level is not supported on target 'cuda'
    }
  }
  parallel by 1 : block, by 1 : group, {x, y} by [8, 3] : thread {}
  // expect-error@-1: the threads of a 'group' level must number a multiple of 32 on target 'cuda', not 24
  parallel by 1 : block, by 1 : group, {x, y} by [8, 4] : thread {}
  parallel by 4 : block {
    parallel by 1 : group-4;
    parallel by 4 : group;
  }
  parallel by 4 : block {
    parallel by 3 : group-4;
    parallel by 3 : group;             // expect-error: the inner 'parallel' levels of one block must use the same number of threads on target 'cuda': this one uses 96, an earlier one 384
  }
}
