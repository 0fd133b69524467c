// Rule (spec 2): "'s32' and 'int' are different in Croktile": an element type is not a
// scalar type, neither for a local variable nor for a parameter.
__co__ void elem_scalar(s32 n, int m) { // expect-error: 's32' is not a scalar type
  s32 x;                       // expect-error: 's32' is not a scalar type; use 'int'
  f16 h = 3;                   // expect-error: 'f16' is not a scalar type
  int ok = m;
}
