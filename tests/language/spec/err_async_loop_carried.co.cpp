// Rule (DESIGN.md 4, issue #11): the analysis follows a `foreach` loop's back edge: a copy
// issued in one iteration and not waited by the end of it is still in flight at the
// start of the next one, so its destination may not be read or written there.
__device__ void kernel(int *x, int n) {}

__co__ void read_before_issue(s32 [4, 8] a) {
  parallel p by 4 {
    local s32 [1, 8] buf;
    with k in [8] {
      foreach k {
        call kernel(buf, 8);                          // expect-error: 'f' is read before 'wait f'
        f = dma.copy.async a.chunkat(p, _) => buf;    // expect-error: 'f' is written before 'wait f'
      }                                               // expect-warning@-1: 'f' is never waited
    }
  }
}

// a fresh destination is the same memory in every iteration
__co__ void reissued(s32 [4, 8] a) {
  parallel p by 4 {
    with k in [8] {
      foreach k {
        f = dma.copy.async a.chunkat(p, _) => local;  // expect-error: 'f' is written before 'wait f'
      }                                               // expect-warning@-1: 'f' is never waited
    }
  }
}

// the wait is in the loop, but under a mask: the next iteration may still see the copy
__co__ void masked_in_loop(s32 [4, 8] a) {
  parallel p by 4 {
    local s32 [1, 8] buf;
    with {k, q} in [8, 1] {
      foreach k {
        dma.copy buf => a.chunkat(p, _);              // expect-error: 'f' is read before 'wait f'
        f = dma.copy.async a.chunkat(p, _) => buf;    // expect-error: 'f' is written before 'wait f'
        foreach q if (k < 4) {                        // expect-warning@-1: 'f' is not waited on every path
          wait f;
        }
      }
    }
  }
}

// swap without a wait: after `swap(cur, nxt)` `cur` names the copy still in flight, and
// after the next swap `nxt` does, whose buffer the next iteration copies into again
__co__ void swap_unwaited(s32 [4, 8, 64] src) {
  parallel p by 4 {
    with k in [8] {
      cur = dma.copy.async src.chunkat(p, k, _) => local;
      wait cur;
      foreach k {
        nxt = dma.copy.async src.chunkat(p, (k + 1) % #k, _) => local;   // expect-error: 'nxt' is written before 'wait nxt'
        call kernel(cur.data, 64);                    // expect-error: 'cur.data' is read before 'wait cur'
        swap(cur, nxt);                               // expect-warning@-2: 'nxt' is never waited
      }
      wait cur;
    }
  }
}

// nested loops: the copy at the end of the outer body reaches its next iteration and the
// inner loop within it
__co__ void nested(s32 [4, 8] a) {
  parallel p by 4 {
    local s32 [1, 8] buf;
    with {i, j} in [2, 3] {
      foreach i {
        call kernel(buf, 8);                          // expect-error: 'g' is read before 'wait g'
        foreach j {
          f = dma.copy.async a.chunkat(p, _) => buf;  // expect-error: 'g' is written before 'wait g'
          wait f;
        }
        g = dma.copy.async a.chunkat(p, _) => buf;    // expect-warning: 'g' is never waited
      }                                               // expect-error@-1: 'g' is written before 'wait g'
    }
  }
}
