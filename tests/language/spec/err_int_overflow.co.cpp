// Rule (spec 2, "Scalar Types"; issue #11): tileflow's int is 32-bit, -2147483648 to
// 2147483647. An operation whose operands are known and whose result leaves that range
// is an error at the operation, for every operator that can overflow; so is a division
// or modulo by a constant zero and a shift by a count outside 0 to 31.
template <int N> __device__ void tkernel(int *x, int n) {}

__co__ void overflows(s32 [4] a, int r) {
  int big = 2147483647;
  int low = -2147483647 - 1;                 // INT_MIN, written as C++ writes it
  int add = big + 1;                         // expect-error: integer overflow in constant expression: '2147483647 + 1' is 2147483648
  int sub = low - 1;                         // expect-error: '-2147483648 - 1' is -2147483649, outside the range of 'int'
  int mul = 65536 * 65536;                   // expect-error: '65536 * 65536' is 4294967296
  int div = low / -1;                        // expect-error: '-2147483648 / -1' is 2147483648
  int mod = low % -1;                        // expect-error: integer overflow in constant expression: '-2147483648 % -1'
  int neg = -low;                            // expect-error: '-(-2147483648)' is 2147483648
  int shl = 3 << 31;                         // expect-error: '3 << 31' is 6442450944
  int shn = -2 << 31;                        // expect-error: '-2 << 31' is -4294967296
  int cnt = 1 << 32;                         // expect-error: shift count 32 is out of range for 'int' (0 to 31)
  int cnn = 1 >> -1;                         // expect-error: shift count -1 is out of range for 'int' (0 to 31)
  int dz = r / (2 - 2);                      // expect-error: division by zero
  int mz = r % 0;                            // expect-error: division by zero
  int deep = r + 65536 * 65536;              // expect-error: '65536 * 65536' is 4294967296
  sp : [65536, 2] * 65536;                   // expect-error: '65536 * 65536' is 4294967296
  tp : [4, 4] / 0;                           // expect-error: division by zero
  parallel p by big + 1 {                    // expect-error: '2147483647 + 1' is 2147483648
  }
  parallel q by 2 {
    local s32 [4] x;
    call tkernel<65536 * 65536>(x, 1);       // expect-error: '65536 * 65536' is 4294967296
    call tkernel<(1 << 30) * 4>(x, 1);       // expect-error: '1073741824 * 4' is 4294967296
  }
}

__co__ void element_count(s32 [65536, 65536] huge) {
  int n = |huge|;                            // expect-error: '65536 * 65536' is 4294967296
  int m = |huge.span|;                       // expect-error: '65536 * 65536' is 4294967296
}
