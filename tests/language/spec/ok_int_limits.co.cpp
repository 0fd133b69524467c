// Rule (spec 2, "Scalar Types"; issue #11): results at the ends of the 32-bit range are
// fine, `1 << 31` is INT_MIN as in C++, and an expression with a runtime operand is not
// folded, so it is not reported (its overflow, if any, happens at run time).
template <int N> __device__ void tkernel(int *x, int n) {}

__co__ int limits(int r) {
  int big = 2147483647;
  int low = -2147483647 - 1;
  int a = big - 1 + 1;
  int b = low + 1 - 1;
  int c = -2147483648;
  int d = 1 << 31;
  int e = -1 << 31;
  int f = low / 1;
  int f2 = low % 2 + (low >> 31) + (~big) / 2;
  int f3 = -big;
  int g = 46340 * 46340;
  int h = r + big;
  parallel p by 2 {
    local s32 [4] x;
    call tkernel<2147483647>(x, 1);
    call tkernel<-2147483647 - 1>(x, 1);
  }
  return a + b;
}
