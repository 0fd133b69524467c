// What the opencl target cannot run: a global event (work-groups are not promised to run
// at once), instances inside a work-item's level that wait on each other (they are the
// work-item's loop there), and, among instances that wait on each other's events (which
// run as resumable instances, opencl_events.py), a synchronous inthreads block that ends
// in a barrier. cpu runs all three (global_events.co.cpp).
// compile-flags: -t opencl
__co__ void across_groups() {
  global event done;                   // expect-error: 'global' events are not supported on target 'opencl' (work-groups are not promised to run at once); use 'shared' events between the work-items of a work-group
  parallel p by 2 {
    inthreads (p == 0) { trigger done; }
    inthreads (p == 1) { wait done; }
  }
}

__co__ void inside_a_work_item() {
  parallel p by 1 {
    parallel q by 2 {
      local event e;
      parallel r by 2 {                // expect-error: the instances of this 'parallel' wait on each other's events, but on target 'opencl' the instances of a level inside a work-item run one after another
        inthreads (r == 0) { trigger e; }
        inthreads (r == 1) { wait e; }
      }
    }
  }
}

__co__ void barrier_among_waiters(s32 [4] a, s32 [4] out) {
  parallel p by 1 {
    shared event e;
    shared s32 [4] s;
    parallel q by 4 {
      inthreads (q == 0) {             // expect-error: this 'inthreads' block ends in a barrier of instances that wait on each other's events: on target 'opencl' they run as resumable instances, which have no such barrier yet (make the block 'inthreads.async' and order it with events)
        dma.copy a => s;               // expect-warning: this step on block-wide 'shared' data runs in every instance of 'q', so the level is not split into block-wide steps (it is inside a loop, 'if' or level of each instance)
        trigger e;
      }
      inthreads (q == 1) { wait e; }
      dma.copy s.chunkat(q) => out.chunkat(q);
    }
  }
}
