// What `foreach` iterates: bounded variables of `with ... in` (the reference's
// tests/check/illegal_for.co and illegal_for_sugar.co), and what a range expression takes.
__co__ void not_bounded(f32 [3, 8, 18] a, s16 [6, 4] b) {
  c = 3;
  foreach c {}                 // expect-error: 'foreach' needs a bounded variable from 'with ... in', but 'c' is an int
  foreach a {}                 // expect-error: but 'a' is spanned data
  foreach f {}                 // expect-error: 'f' was not declared in this scope
  ituple<2> it = {3, 5};
  foreach it {}                // expect-error: but 'it' is an ituple
  with idx = {x, y} in b.span {
    foreach x, y {}
    foreach y, x {}
    foreach idx, x, y {}
    foreach idx(1:) {}         // expect-error: a range 'idx(lower:upper:step)' needs a bounded integer
    foreach x(0:0:0) {}        // expect-error: the step of 'x' is 0; it must be positive
    foreach x {
      foreach x {}             // expect-error: 'x' is already iterated by an enclosing 'foreach'
    }
  }
  parallel p by 6 {
    foreach p {}               // expect-error: 'p' is bound by 'parallel'
  }
  foreach {m, n} in a.span {}  // expect-error: 2 names are bound to 3 bounds
  foreach i in [4] if (1.5 > a.at(0, 0, i)) {}  // expect-error: the 'foreach ... if' condition must be a tileflow integer or boolean
}

// `with` (tests/check/illegal_within.co, tests/parse/error_within.co)
__co__ void withs(s32 [1, 2, 3] ss, s16 [6, 4] b) {
  with n in |ss.span| {}       // expect-error: 'with ... in' needs an mdspan or an integer bound
  with {x, y} in b.span, {x, z} in [1, 2] {}  // expect-error: redefinition of 'x'
  with {y, z} in b.span where x <-> y {}     // expect-error: 'x' in 'where' must be a bounded variable of this 'with'
  with {u, v, w} in [3, 4, 5, 6] {}          // expect-error: 3 names are bound to 4 bounds
  with a in [2];
}

// i-tuples (tests/check/illegal_ituple.co, tests/parse/error_ituple*.co)
__co__ void ituples(int a) {
  ituple it0;                  // expect-error: an ituple must be initialized
  ituple<1> it2 = {7, 8};      // expect-error: 'it2' is declared as 'ituple<1>' but initialized with 2 elements
  ituple<3> ok = {a, 9, 102};
  ituple it4 = 100;            // expect-error: an ituple needs a value like '{a, b}', not an integer
  ituple it1 = [7, 8];         // expect-error: an ituple needs a value like '{a, b}', not mdspan
  sel = ok {(2), (5)};         // expect-error: '(5)' names dimension 5, but the mdspan has 3 dimensions
}
