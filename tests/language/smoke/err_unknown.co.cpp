__co__ void f(s32 [4] a) {
  parallel p by 4 {
    call k(nope);  // expect-error: 'nope' was not declared in this scope
  }
}
