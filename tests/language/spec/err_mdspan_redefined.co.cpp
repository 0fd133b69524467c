// Rule (spec 2): "a mdspan can only be defined once".
__co__ void mdspan_twice(int a) {
  sp : [7, 8];
  sp : [1, 2];                 // expect-error: mdspan 'sp' is already defined
  mdspan<2> m2 : [a, 3];
  mdspan m2 : [3, 3];          // expect-error: mdspan 'm2' is already defined
  d : [a, 4];
  mdspan<2> d : [a, 4];        // expect-error: mdspan 'd' is already defined
}
