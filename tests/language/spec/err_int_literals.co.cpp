// Spec 2, "Scalar Types": tileflow's int is 32-bit, -2147483648 to 2147483647, with no
// unsigned or 64-bit type. An integer constant that does not fit is an error at the
// constant, in every base; 2147483648 fits only as the operand of a unary '-' (INT_MIN).
// Suffixes (u, l, ...) name types tileflow does not have. Such C++ constants still parse
// (`--dump-ast` shows them, as the reference's parse/int64.co expects); their use is the
// error. Tokens that are no C++ constant are in err_int_tokens.co.cpp. test_robustness.py
// checks a constant of thousands of digits.
template <int N> __device__ void tkernel(int *x, int n) {}

__co__ void literals(int r) {
  int a = 2147483648;                  // expect-error: integer constant is too large for type 'int'
  int b = 4294967296;                  // expect-error: integer constant is too large for type 'int'
  int c = 99999999999999999999999999;  // expect-error: integer constant is too large for type 'int'
  int d = 0x80000000;                  // expect-error: integer constant is too large for type 'int'
  int e = 0xFFFFFFFF;                  // expect-error: integer constant is too large for type 'int'
  int f = 020000000000;                // expect-error: integer constant is too large for type 'int'
  int g = 0b10000000000000000000000000000000;  // expect-error: integer constant is too large for type 'int'
  int h = r - 2147483648;              // expect-error: integer constant is too large for type 'int'
  int i = -(2147483648);               // expect-error: integer constant is too large for type 'int'
  int j = -2147483649;                 // expect-error: integer constant is too large for type 'int'
  int k = 10u;                         // expect-error: invalid suffix 'u' on integer constant
  int l = 10L;                         // expect-error: invalid suffix 'L' on integer constant
  int m = 10ull;                       // expect-error: invalid suffix 'ull' on integer constant
  parallel t by 2 {
    local s32 [4] x;
    call tkernel<2147483648>(x, 1);    // expect-error: integer constant is too large for type 'int'
  }
}
