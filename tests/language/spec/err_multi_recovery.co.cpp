// Error recovery: one run reports the errors of several statements and functions.
// A syntax error stops only the checking of its own function; other functions are checked.
__device__ void kernel(int *a, int n) {}
__co__ void helper() {}

__co__ void broken_syntax(s32 [4] a) {
  int x = ;                            // expect-error: expected expression before ';'
  int w = 2                            // expect-error: expected ';' before 'parallel'
  parallel p by 2 {
    call kernel(a 4);                  // expect-error: expected ')' before '4'
  }
  undefined_here = 1 +;                // expect-error: expected expression before ';'
}

__co__ void many_semantic_errors(s32 [6, 17] a, float pad) {
  s64 x;                               // expect-error: 's64' is not a scalar type
  call kernel(a, 1);                   // expect-error: can only be called inside 'parallel'
  parallel p by 6 {
    f = dma.copy a.chunkat(p, 3) => local;  // expect-error: chunkat index is not bounded
    wait f;                            // no follow-on error for the failed copy
    with i in [4] {
      foreach i {
        g = dma.copy a.chunkat(p, i) => local; // expect-error: (17) is not divisible by the bound of 'i' (4)
      }
    }
    int y = pad << 2;                  // expect-error: invalid operands to binary '<<' (have floating-point values)
    helper();                          // expect-error: cannot call another __co__ function ('helper')
    return;                            // expect-error: 'return' inside 'parallel'
  }
  sp : [1];
  sp : [2];                            // expect-error: mdspan 'sp' is already defined
}

__co__ void after_errors() {
  q = nothing;                         // expect-error: 'nothing' was not declared in this scope
}
