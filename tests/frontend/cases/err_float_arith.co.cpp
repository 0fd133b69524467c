// Spec 3 says "operations on floating-point are not supported by Croktile"; the reference's
// current language computes with them in element statements (`x.at(i) = a * y.at(i)`,
// tests/dialect/cases/loops), but a floating-point value is no tileflow integer, and only
// parameters and literals are passed to calls.
__device__ void use(float x) {}

__co__ void float_ops(float padding, int n) {
  int a = padding + 1;         // expect-error: cannot initialise 'int a' with floating-point value
  bool b = padding < 1.0;      // expect-error: cannot initialise 'bool b' with floating-point value
  float local_f = 2.0;         // expect-error: floating-point variables are not allowed
  double d;                    // expect-error: floating-point variables are not allowed
  x = 2.5;                     // expect-error: floating-point variables are not allowed
  n = padding;                 // expect-error: floating-point values may only be passed to calls
  parallel p by 1 {
    call use(padding);         // fine
    call use(1.5);             // fine
    call use(padding * 2);     // expect-error: a floating-point value computed in tileflow code cannot be passed
    call use(-padding);        // expect-error: a floating-point value computed in tileflow code cannot be passed
  }
}
