// opencl runs the instances of the level below the launch as the work-items of a
// work-group, which meet at a barrier (run_inthreads.co.cpp); what it cannot do is an
// error at the block: a barrier among the instances of a deeper level (a loop inside a
// work-item there), and one inside control flow that differs between the instances
// (some work-items would not reach it). cpu and factor run the first (threads).
// compile-flags: -t opencl

__co__ void two_levels(f32 [4, 8] a, f32 [4, 8] out) {
  parallel p by 1 : block {
    shared f32 [4, 8] s;
    parallel q by 2 : group {
      parallel r by 2 : thread {
        inthreads (q == 0 && r == 0) { // expect-error: this 'inthreads' block ends in a barrier of the instances of 'q' and 'r'; on target 'opencl' only the instances of one level, the work-items of a work-group, can meet at a barrier (those of 'r' are a loop inside a work-item)
          dma.copy a => s; // expect-warning: this step on block-wide 'shared' data runs in every instance of 'q', so the level is not split into block-wide steps (it is inside a loop, 'if' or level of each instance)
        }
        dma.copy s.chunkat(q # r, _) => out.chunkat(q # r, _);
      }
    }
  }
}

__co__ void some_instances(f32 [4, 8] a, f32 [4, 8] out) {
  parallel p by 1 : block {
    shared f32 [4, 8] s;
    parallel q by 4 : group {
      if (q % 2 == 0) {
        inthreads (q == 0) { // expect-error: this 'inthreads' block ends in a barrier of its level's instances, but it sits in control flow that depends on q: on target 'opencl' every work-item of the group must reach the barrier
          dma.copy a => s; // expect-warning: this step on block-wide 'shared' data runs in every instance of 'q', so the level is not split into block-wide steps (it is inside a loop, 'if' or level of each instance)
        }
      }
      dma.copy s.chunkat(q, _) => out.chunkat(q, _);
    }
  }
}
