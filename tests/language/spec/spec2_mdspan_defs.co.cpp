// Spec 2, "The Partial Type: mdspan": the three ways to define an mdspan.
//   mdspan sp : [7, 8]; mdspan<4> mds : [a, 3, 4, 1]; d : [c, 4, 28];
// Added: the enclosing __co__ function, with 'a' and 'c' as its integer parameters
// ("'a' is an existing integer").
__co__ void mdspan_defs(int a, int c) {
  mdspan sp : [7, 8]; // defined a mdspan of 2-dimensions
  mdspan<4> mds : [a, 3, 4, 1]; // 'a' is an existing integer
  d : [c, 4, 28]; // 'd' is not explicit annotated. Type is deduced.
}
