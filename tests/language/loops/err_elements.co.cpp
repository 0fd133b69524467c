// Element access `x.at(...)`: indices, bounds, what can be stored (the reference's
// tests/check/illegal_data_access.co among them).
__co__ void indices(f32 [M, 24] input, s32 [4, 8] a, int N) {
  parallel p by 1 {
    foreach i in M {
      ii = dma.copy input.chunkat(i, _) => local;
      ii.at(0, 0) = 1.0;       // expect-error: expect 'ii' a spanned type but got a future
      ii.data.at(0, 3) = ii.data.at(0, 2) * 0.5;
    }
    a.at(1) = 0;               // expect-error: '.at' has 1 index for the 2 dimensions of 'a'
    a.at(4, 0) = 0;            // expect-error: index 4 is out of range for dimension 0 of 'a' (4)
    a.at(0, -1) += 1;          // expect-error: index -1 is out of range for dimension 1 of 'a' (8)
    foreach k in [16]
      a.at(0, k) = 1;          // expect-error: index of dimension 1 of 'a' ranges up to 15, beyond the dimension (8)
    a.at(a.at(0, 0), 0) = 1;   // expect-error: an element value cannot index data
    a.at(0, 0) = a.span;       // expect-error: cannot store mdspan into an element of 's32' data
    a.span(0) = 1;             // expect-error: only an element 'x.at(...)' can be assigned here
    a.at(0, 0) %= 1.5;         // expect-error: invalid operands to '%=' (have floating-point values)
    a.at(0, 1) = a.at(0, 0) << 2.0;  // expect-error: invalid operands to binary '<<' (have floating-point values)
    int v = a.at(0, 0);        // expect-error: cannot initialise 'int v' with element value
    a.at(0, 2) = N#p;          // expect-error: '#' composes bounded integers (from 'parallel ... by' or 'with ... in'), not an unbounded int
  }
}
