// Floating-point scalars compute as C does (README "Scalars, declarations and control
// flow"); what C rejects on floating-point values is rejected, and f16 and bf16 have no
// common type (as in the reference: tests/check/illegal_arith_decl.co).
__device__ int use(float x) { return 0; }

__co__ void float_ops(float padding, int n, bf16 b, f16 h, f32 [4] a) {
  int s = padding << 1;        // expect-error: invalid operands to binary '<<' (have floating-point values)
  float r = padding % 2;       // expect-error: invalid operands to binary '%' (have floating-point values)
  int t = ~padding;            // expect-error: invalid operand to unary '~'
  float m = b + h;             // expect-error: 'bf16' and 'f16' have no common type
  padding = 2.0;               // expect-error: cannot assign to floating-point parameter 'padding'
  float e = a.at(0);           // expect-error: an element of data is read into a scalar only inside 'parallel'
  int c = 1.5;                 // expect-warning: implicit conversion from 'double' to 'int' may change the value
  c = 2;                       // expect-error: only mutables can be re-assigned
  parallel p by 1 {
    int v = call use(padding); // expect-error: 'v' takes the value of a call and must be 'mutable'
    mutable w = call use(1.5); // expect-error: cannot deduce the type of 'w' from a call
    mutable float ok = call use(padding * 2);
    call use(-padding);        // fine: a value computed where the call runs
    padding2 = call use(ok);   // expect-error: 'call' gives its value to a declared mutable scalar
  }
}
