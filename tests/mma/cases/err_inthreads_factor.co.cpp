// factor (and opencl) run a block's inner instances one after another: a synchronous
// inthreads block that fills data the other instances read after it needs a barrier
// those targets do not generate yet, which is an error at the block (not a wrong result).
// compile-flags: -t factor

__co__ void one_loader(f32 [4, 8] a, f32 [4, 8] out) {
  parallel p by 1 : block {
    shared f32 [4, 8] s;
    parallel q by 4 : group {
      inthreads (q == 0) { // expect-error: this 'inthreads' block writes data that the other instances of its level read after it, so it ends in a barrier of those instances, which the factor target does not generate yet (the cpu and cuda targets do)
        dma.copy a => s; // expect-warning: this step on block-wide 'shared' data runs in every instance of 'q', so the level is not split into block-wide steps
      }
      dma.copy s.chunkat(q, _) => out.chunkat(q, _);
    }
  }
}
