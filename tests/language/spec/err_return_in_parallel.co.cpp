// A __co__ function returns from its host-level code, never from inside `parallel`.
__co__ s32 [4] ret_parallel(s32 [4] a) {
  s32 [4] out;
  parallel p by 2 {
    return out;                // expect-error: 'return' inside 'parallel'
    with i in [2] {
      foreach i {
        return;                // expect-error: 'return' inside 'parallel'
      }
    }
  }
  return out;
}
