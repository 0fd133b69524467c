// Rule (spec 2): `foreach` loops over bounded variables from `with-in`; a `parallel-by`
// variable already runs in parallel. Plain integers are not bounded at all.
__co__ void foreach_parallel(int n) {
  parallel p by 6 {
    foreach p {}          // expect-error: 'p' is bound by 'parallel'
    foreach n {}          // expect-error: 'foreach' needs a bounded variable from 'with ... in', but 'n' is an int
    with i in [4] {
      foreach i {
        foreach i {}      // expect-error: 'i' is already iterated by an enclosing 'foreach'
      }
    }
  }
}
