// Issue #11 (read-before-wait over control flow), review R1: a copy issued inside a
// `parallel` block and not waited there can never be waited (its future goes out of
// scope), so reading its destination after the block is an error at the read, at every
// level: a global output returned, a shared buffer read by the outer level after an inner
// `parallel`, and a copy issued again in the next iteration of a loop of launches.
// A copy waited inside the inner level is fine.
__device__ void kernel(int *x, int n) {}

__co__ s32 [4, 8] returned_unwaited(s32 [4, 8] a) {
  s32 [4, 8] out;
  parallel p by 4 {
    f = dma.copy.async a.chunkat(p, _) => out.chunkat(p, _);   // expect-warning: 'f' is never waited
  }
  return out;                                  // expect-error: 'f' is read before 'wait f'
}

__co__ s32 [4, 8] inner_level_unwaited(s32 [4, 8] a) {
  s32 [4, 8] out;
  parallel p by 4 {
    shared s32 [1, 8] buf;
    parallel q by 2 {
      f = dma.copy.async a.chunkat(p, _) => buf;   // expect-warning: 'f' is never waited
    }
    call kernel(buf, 8);                       // expect-error: 'f' is read before 'wait f'
  }
  return out;
}

__co__ s32 [4, 8] inner_level_waited(s32 [4, 8] a) {
  s32 [4, 8] out;
  parallel p by 4 {
    shared s32 [1, 8] buf;
    parallel q by 2 {
      f = dma.copy.async a.chunkat(p, _) => buf;
      wait f;
    }
    call kernel(buf, 8);
    dma.copy buf => out.chunkat(p, _);
  }
  return out;
}

__co__ s32 [4, 8] loop_of_launches(s32 [4, 8] a) {
  s32 [4, 8] out;
  with k in [3] {
    foreach k {
      parallel p by 4 {
        f = dma.copy.async a.chunkat(p, _) => out.chunkat(p, _);   // expect-error: 'f' is written before 'wait f'
      }                                        // expect-warning@-1: 'f' is never waited
    }
  }
  return out;                                  // expect-error: 'f' is read before 'wait f'
}

int main() { return 0; }
