// Spec 3, "The Convention: Allowed Argument Types": spanned data, integers and
// floating-point values (a literal and a parameter) passed to device functions. Verbatim;
// 'M' is a symbolic dimension bound by the shape of 'input'.
__device__ void bar(float *p, int m, int n) {}
__device__ void foo(float *, int, unsigned, double, float) {}

__co__ void foobar(f32 [M, 24] input, int N, float padding) {
  parallel p by 1 {
    shared f32 [14, 7] buffer;
    call bar(input.data, M, buffer.span(0));
    call foo(buffer.data, N, 3, 3.14, padding);
  }
}
