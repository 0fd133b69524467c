// factor has no events yet: an error at the first event, not a program that hangs.
// compile-flags: -t factor
__co__ void f() {
  parallel p by 2 {
    shared event e;                    // expect-error: events are not supported on target 'factor' yet
    inthreads (p == 0) { trigger e; }
    inthreads (p == 1) { wait e; }
  }
}
