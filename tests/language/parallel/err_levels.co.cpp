// Parallel levels rejected with the reference's reasons (tests/parse/error_parallel_by*,
// tests/check/{illegal_parallel_by,illegal_pb_arith,symbolic-paraby,error_pb_with_anno,
// illegal_groups,illegal_multi_pb,thread_dimension_check}.co), at the level or bound.
__co__ void bounds(int a, bool b, float c) {
  parallel {p} by [6, 128] {}          // expect-error: fewer parallel variables than bounds (1 vs. 2)
  parallel {p, q} by [128] {}          // expect-error: more parallel variables than bounds (2 vs. 1)
  parallel p by [5, a] {}              // expect-error: the parallel variable 'p' cannot take 2 bounds
  parallel p by -5, q = {x, y} by [-2, 0] {}
  // expect-error@-1: 'parallel' bound is -5; it must be positive
  // expect-error@-2: 'parallel' bound 0 is -2; it must be positive
  // expect-error@-3: 'parallel' bound 1 is 0; it must be positive
  parallel p by a + b;                 // expect-error: a 'parallel' bound must be an integer, not bool
  parallel {px} by [false];            // expect-error: a dimension must be an integer, not a boolean
  parallel p by c;                     // expect-error: a 'parallel' bound must be an integer, not float
  parallel p by 3 * a + 7;
}

__co__ void asynchronous() {
  parallel.async by 4
    parallel.async by 3;               // expect-error: an inner 'parallel' level cannot be asynchronous
  parallel by 4 parallel.async by 3;   // expect-error: an inner 'parallel' level cannot be asynchronous
}

__co__ void annotations() {
  parallel by 2 : warp {}              // expect-error: unknown parallel level 'warp'
  parallel by 2 : group-8 {}           // expect-error: unknown parallel level 'group-8'
  parallel p by 3 : thread {
    parallel by 2 : block {}           // expect-error: cannot infer the parallel levels between 'thread' and 'block'
  }
  parallel p by 3 : block {
    parallel by 4 : block {}           // expect-error: cannot infer the parallel levels between 'block' and 'block'
  }
  parallel p by 2 : block {
    parallel q by 4 : thread {}
  }
  parallel by 2 {
    parallel by 4 : thread {}          // expect-warning: annotate all levels of nested 'parallel' blocks or none
  }
}
