// Rule (spec 3): "operations on floating-point are not supported by Croktile"; float values
// may only be passed to calls.
__device__ void use(float x) {}

__co__ void float_ops(float padding, int n) {
  int a = padding + 1;         // expect-error: floating-point arithmetic is not allowed
  bool b = padding < 1.0;      // expect-error: floating-point arithmetic is not allowed
  float local_f = 2.0;         // expect-error: floating-point variables are not allowed
  double d;                    // expect-error: floating-point variables are not allowed
  x = 2.5;                     // expect-error: floating-point variables are not allowed
  n = padding;                 // expect-error: floating-point values may only be passed to calls
  parallel p by 1 {
    call use(padding);         // fine
    call use(1.5);             // fine
    call use(padding * 2);     // expect-error: floating-point arithmetic is not allowed
    call use(-padding);        // expect-error: floating-point arithmetic is not allowed
  }
}
