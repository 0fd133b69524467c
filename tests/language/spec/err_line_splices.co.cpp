// Lines joined by backslash-newline keep their own numbers in diagnostics.
__co__ void f(s32 [4, 8] a) {
  int b = 1 + \
    zz; // expect-error: 'zz' was not declared in this scope
  // a comment \
  that goes on, so this is not code: zz
  int c = \
    \
    yy; // expect-error: 'yy' was not declared in this scope
}
