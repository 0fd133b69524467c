// Rule (spec 2): "No modification to an existing mdspan is allowed."
__co__ void mdspan_assigned() {
  sp : [7, 8];
  sp = [1, 2];                 // expect-error: mdspan 'sp' cannot be assigned
  mdspan<2> m : [2, 2];
  t = {2, 2};
  m = m / t;                   // expect-error: mdspan 'm' cannot be assigned
}
