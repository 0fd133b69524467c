// A `stream` parameter names the caller's queue; a function has at most one, and tileflow
// code cannot use it.
__co__ void two(int n, stream a, stream b) {   // expect-error: a __co__ function takes at most one 'stream' parameter
  parallel p by 2 {}
}
__co__ void used(stream s) {
  int k = s;   // expect-error: 's' is a stream parameter; it only says where the work is queued and cannot be used in tileflow code
}
