// factor runs shared events (pipeline.co.cpp) but not global ones yet: an error at the
// declaration, not a program that hangs.
// compile-flags: -t factor
__co__ void f() {
  global event e;                      // expect-error: 'global' events are not supported on target 'factor' yet
  parallel p by 2 {
    inthreads (p == 0) { trigger e; }
    inthreads (p == 1) { wait e; }
  }
}
