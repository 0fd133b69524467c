// Rule (DESIGN.md 4, issue #11): a `wait` inside `foreach ... if` runs only for the
// instances that the condition selects; for the others the copy may still be in flight,
// so after the masked block the future may be pending and its data may not be read.
__device__ void kernel(int *x, int n) {}

__co__ s32 [4, 8] masked_wait(s32 [4, 8] a) {
  s32 [a.span] out;
  parallel p by 4 {
    with q in [1] {
      f = dma.copy.async a.chunkat(p, _) => local;   // expect-warning: 'f' is not waited on every path
      foreach q if (p == 0) {
        wait f;
        call kernel(f.data, 8);                       // fine: waited on this path
      }
      dma.copy f.data => out.chunkat(p, _);           // expect-error: 'f.data' is read before 'wait f'
      call kernel(f.data, 8);                         // expect-error: 'f.data' is read before 'wait f'
    }
  }
  return out;
}

// the same through the destination buffer, and with a mask nested in a loop
__co__ void masked_buffer(s32 [4, 8] a) {
  parallel p by 4 {
    local s32 [1, 8] buf;
    with {q, k} in [2, 3] {
      f = dma.copy.async a.chunkat(p, _) => buf;      // expect-warning: 'f' is not waited on every path
      foreach k {
        foreach q if (k == 1) {
          wait f;
        }
      }
      call kernel(buf, 8);                            // expect-error: 'f' is read before 'wait f'
      dma.copy a.chunkat(p, _) => buf;                // expect-error: 'f' is written before 'wait f'
    }
  }
}

// a condition that is always false: the wait never runs
__co__ void never(s32 [4, 8] a) {
  parallel p by 4 {
    with q in [1] {
      f = dma.copy.async a.chunkat(p, _) => local;    // expect-warning: 'f' is not waited on every path
      foreach q if (false) {                          // expect-warning: the 'foreach' condition is always false
        wait f;
      }
      call kernel(f.data, 8);                         // expect-error: 'f.data' is read before 'wait f'
    }
  }
}
