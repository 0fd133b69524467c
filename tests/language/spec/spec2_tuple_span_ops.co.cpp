// Spec 2, "Operations over mdspan and i-tuple": tiling an mdspan by an i-tuple.
//   sp : [6, 8]; tiling_factor = {3, 2}; spn : sp / tiling_factor; // [2, 4]
// Added: the enclosing __co__ functions, and the other listed operations (+ % * -), each
// used as the shape of some data. test_ir.py checks the resulting shapes.
__co__ void tuple_span_div() {
  sp : [6, 8];
  tiling_factor = {3, 2};
  spn : sp / tiling_factor; // spn is defined as [2, 4];
  s32 [spn] tiles;
}

__co__ void tuple_span_ops() {
  sp : [6, 8];
  t = {4, 3};
  s_add : sp + t;   // [10, 11]
  s_mod : sp % t;   // [2, 2]
  s_mul : sp * t;   // [24, 24]
  s_sub : sp - t;   // [2, 5]
  s32 [s_add] a;
  s32 [s_mod] b;
  s32 [s_mul] c;
  s32 [s_sub] d;
}
