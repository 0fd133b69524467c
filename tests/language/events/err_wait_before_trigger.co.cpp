// A wait that no trigger can set on any path before it blocks forever (issue #36): an
// error at the wait naming the event, with a note at a trigger that comes too late (or
// whose flag an earlier wait takes: one trigger ends one wait). Paths follow `if`s,
// loops (a trigger late in a loop body reaches the next iteration's wait) and the
// instances of a level that run at the same time (docs/language/dma.md, "Events"): a
// trigger in any instance of a level inside the one that declares the event may end a
// wait in another, so cross-instance signalling stays accepted.

__co__ void straight_line() {
  parallel p by 2 {
    local event ev;
    wait ev;                // expect-error: wait on event 'ev' that no trigger before it sets: it would block forever
    trigger ev;             // expect-note: 'ev' is triggered here, after the wait on line 12
  }
}

__co__ void taken_twice() {
  parallel p by 2 {
    local event ev;
    trigger ev;             // expect-note: 'ev' is triggered here, but a wait between this and line 22 takes the flag (one trigger ends one wait)
    wait ev;
    wait ev;                // expect-error: wait on event 'ev' that no trigger before it sets: it would block forever
  }
}

// the flags of an array element by element: 'a[0]' is set only after the wait
__co__ void array_elements() {
  parallel p by 2 {
    local event a[3];
    trigger a[1], a[2];
    wait a[1];
    trigger a[1];
    wait a;                 // expect-error: wait on events 'a', of which no trigger before it sets 'a[0]': it would block forever
    trigger a[0];           // expect-note: 'a[0]' is triggered here, after the wait on line 33
  }
}

// an element that no trigger of the function sets
__co__ void element_never_set() {
  parallel p by 2 {
    local event b[3];
    trigger b[0], b[2];
    wait b;                 // expect-error: wait on events 'b', of which nothing triggers 'b[1]': it would block forever
  }
}

// a level's instances end before the code after it runs: a trigger there is too late
__co__ void after_the_level() {
  parallel p by 2 {
    local event go;
    parallel q by 4 {
      wait go;              // expect-error: wait on event 'go' that no trigger before it sets: it would block forever
    }
    trigger go;             // expect-note: 'go' is triggered here, after the wait on line 52
  }
}

// an event declared in a loop body is new in each iteration
__co__ void declared_in_the_loop() {
  parallel p by 2 {
    foreach i in [4] {
      local event ev;
      if (i > 0) {
        wait ev;            // expect-error: wait on event 'ev' that no trigger before it sets: it would block forever
      }
      trigger ev;           // expect-note: 'ev' is triggered here, after the wait on line 64
    }
  }
}

// accepted: a trigger on one path, in an earlier iteration, in the other instances of a
// level (later in the text), in a level that ends before the wait, at a run-time index
__co__ void reached(int n) {
  global event g;
  parallel p by 2 {
    local event e, f, h[4];
    shared event s[2];
    if (n > 0) {
      trigger e;
    }
    wait e;
    foreach i in [4] {
      if (i > 0) {
        wait f;
      }
      trigger f;
    }
    parallel q by 2 {
      inthreads (q == 0) { wait s[1]; }
      inthreads (q == 1) { trigger s[1]; }
      trigger h[q];
    }
    wait h[n];
    inthreads (p == 1) { wait g; }
    inthreads (p == 0) { trigger g; }
  }
}

// accepted: the instances of an outermost 'thread' level share a 'shared' event (they
// are the threads of one block)
__co__ void one_block() {
  parallel t by 64 : thread {
    shared event ready;
    inthreads (t == 1) { wait ready; }
    inthreads (t == 0) { trigger ready; }
  }
}
