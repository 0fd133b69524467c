// Parameter shapes: a spanned parameter needs a shape or a rank (spec 2's `f32 mdspan<2> d`);
// literal dimensions must be positive; an absurd rank is rejected rather than expanded.
__co__ void p1(f32 mdspan d) {}                   // expect-error: parameter 'd' needs a shape or a rank
__co__ void p2(f32 mdspan<0> d) {}                // expect-error: parameter 'd' needs a shape or a rank
__co__ void p3(s32 [4, 0] a) {}                   // expect-error: dimension 1 of 'a' must be positive, not 0
__co__ void p4(f32 mdspan<1000000000> d) {}      // expect-error: rank 1000000000 of parameter 'd' is too large
__co__ void p6(f32 mdspan<100000000000000000000> d) {}  // expect-error: integer constant is too large for type 'int'
__co__ void p5(f32 mdspan<3> d, s32 [N, N] sq, s32 [N, 2 * N] wide) {}  // fine: symbolic, checked on entry
