// What the cuda target cannot run: a global event (it would order blocks, which CUDA
// does not promise to run at once) and instances inside a thread's level that wait on
// each other (they are the thread's loop there), or more of them than a block has
// threads. cpu runs such programs (global_events.co.cpp).
// compile-flags: -t cuda
__co__ void across_blocks() {
  global event done;                   // expect-error: 'global' events are not supported on target 'cuda'
  parallel p by 2 {
    inthreads (p == 0) { trigger done; }
    inthreads (p == 1) { wait done; }
  }
}

__co__ void inside_a_thread() {
  parallel p by 1 {
    parallel q by 2 {
      local event e;
      parallel r by 2 {                // expect-error: the instances of this 'parallel' wait on each other's events, but on target 'cuda' the instances of a level inside a thread run one after another
        inthreads (r == 0) { trigger e; }
        inthreads (r == 1) { wait e; }
      }
    }
  }
}

__co__ void more_than_a_block() {
  parallel p by 1 {
    shared event e[1000];
    parallel q by 1000 {               // expect-error: so on target 'cuda' each needs a thread of its own: at most 512, a constant
      inthreads (q == 0) { trigger e; }
      inthreads (q > 0) { wait e[q]; }
    }
  }
}
