// A wait that nothing in the function triggers blocks forever on every target: an
// error at the wait (other deadlocks are reported at run time: tests/runtime/test_event_deadlock.py).
__co__ void never_triggered() {
  parallel p by 2 {
    shared event e, f[2][3];
    inthreads (p == 0) { trigger f[1]; }
    inthreads (p == 1) {
      wait e;                          // expect-error: wait on event 'e' that nothing triggers: it would block forever
      wait f[1][2];
      wait f[0];                       // expect-error: wait on events 'f[0]' that nothing triggers: it would block forever
      wait f[0][2];                    // expect-error: wait on event 'f[0][2]' that nothing triggers: it would block forever
    }
  }
}

// an index known only at run time may name a triggered element: accepted
__co__ void run_time_index(int n) {
  parallel p by 2 {
    shared event g[4];
    inthreads (p == 0) { trigger g[n]; }
    inthreads (p == 1) { wait g[3]; }
  }
}

