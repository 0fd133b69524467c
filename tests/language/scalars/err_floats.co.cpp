// What stays an error among floating-point scalars, sized scalar type names and `call`
// as a value (README "Scalars, declarations and control flow"); the reference's
// tests/check/illegal_arith_decl.co and illegal_calls.co (illegal_call4) among them.
__cok__ { extern "C" int bar() { return 1; } }

__co__ auto illegal_arith(bf16 x, f16 y) {
  f32 f = x + y;               // expect-error: 'bf16' and 'f16' have no common type
  return f;
}

__co__ void illegal_call4() {
  parallel by 1 {
    int a = call bar();        // expect-error: 'a' takes the value of a call and must be 'mutable'
    mutable b = call bar();    // expect-error: cannot deduce the type of 'b' from a call
    mutable float c = call bar();
  }
}

__co__ half ret_half(float x) { // expect-error: a __co__ function cannot return 'half' (not supported yet)
  return x;
}

__co__ void types(s64 big, float f) { // expect-error: 's64' is not a scalar type: integers in tileflow code are 32-bit
  u32 u = 1;                   // expect-error: 'u32' is not a scalar type
  half8 v;                     // expect-error: 'half8' is not a scalar type (not supported yet)
  f = 1.0;                     // expect-error: cannot assign to floating-point parameter 'f'
  float g = f;
  int k = 2;
  k = g;                       // expect-error: only mutables can be re-assigned
  foreach i in [g] { }         // expect-error: a dimension must be an integer or an mdspan, not floating-point value
  parallel p by g { }          // expect-error: a 'parallel' bound must be an integer, not floating-point value
  mutable float acc = 0;
  parallel q by 2 {
    acc += 1;                  // expect-error: 'acc' is host-level data; it cannot be assigned inside 'parallel'
  }
  mutable int n = call bar();  // expect-error: can only be called inside 'parallel'
}
