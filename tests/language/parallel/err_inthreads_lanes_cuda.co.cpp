// On cuda an unannotated-work 'group' level runs each instance on one thread of its warp,
// and those threads cannot meet at the barrier an 'inthreads' block ends in: an error that
// '-fsyntax-only -t cuda' gives as '-S' does (found by the tensor-core fuzzer, #36).
// compile-flags: -t cuda -arch=sm_90a
__co__ void f(s32 [4] b) {
  parallel p by 1 : block {
    parallel w by 4 : group {
      shared s32 [4] bs;
      inthreads (w == 0) {  // expect-error: each of them runs on one thread of its warp here
        dma.copy b => bs;  // expect-warning: runs in every instance of 'w'
      }
    }
  }
}
