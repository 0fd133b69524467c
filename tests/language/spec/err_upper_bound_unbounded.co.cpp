// `#x` is the upper bound of a bounded variable; other names have none.
__co__ void upper_bound(int n, s32 [8] a) {
  sp : [4, 4];
  int x = 3;
  int b1 = #x;                 // expect-error: '#x': 'x' is not bounded
  int b2 = #n;                 // expect-error: '#n': 'n' is not bounded
  s32 [#sp] d;                 // expect-error: '#sp': 'sp' is not bounded
  int b3 = #a;                 // expect-error: '#a': 'a' is not bounded
  parallel p by 4 {
    with {i, j} in [2, 8] {
      int ok = #p + #i + #j;   // fine: 4 + 2 + 8
    }
  }
}
