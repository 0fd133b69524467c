// Spec 2, "Scalar Types": every 'int' value can be written as a constant, in decimal,
// hexadecimal, octal and binary; -2147483648 is INT_MIN (see err_int_literals.co.cpp).
template <int N> __device__ void tkernel(int *x, int n) {}

__co__ int literals(int r) {
  int a = 2147483647;
  int b = -2147483648;
  int c = 0x7fffffff - 0X7FFFFFFF + 0x7FFFffff;
  int d = 017777777777;
  int e = 0b1111111111111111111111111111111;
  int f = 00000000000000000000000000000000000000000000000000000000000000000000000000000001;
  int g = r - -2147483648 + 0;
  int h = -2147483648 / 2;
  int i = 0;
  parallel p by 2 {
    local s32 [4] x;
    call tkernel<-2147483648>(x, 2147483647);
  }
  return a + b + i;
}
