// `break`/`continue` only in a loop, never across `parallel`; `while` waits on events
// (the reference's rule); `cdiv` needs a positive divisor; a false `assert` on known values
// is a compile-time error; strings only in print/println/assert.
__co__ void control(int n) {
  if (n > 3) break;            // expect-error: 'break' outside a loop
  parallel by_one by 1 {
    continue;                  // expect-error: 'continue' outside a loop across 'parallel'
    with i in [3] {
      foreach i {
        if (i == 1) continue;
        parallel q by 2 { break; }   // expect-error: 'break' outside a loop across 'parallel'
      }
    }
  }
  bool cc = true;
  while (cc) { }               // expect-error: 'while' needs an event condition, not bool
  int x = cdiv(n, 0);          // expect-error: 'cdiv' needs a positive divisor, not 0
  int y = cdiv(n);             // expect-error: 'cdiv' takes two integers, not 1 argument
  t = cdiv({10, 20}, {1, 2, 3});   // expect-error: 'cdiv' of 2 and 3 elements: their lengths must be equal
  sp : [cdiv(n, 4), 2];
  int two = 2;
  assert(two > 3, "never");    // expect-error: assertion failed: never
  s = "text";                  // expect-error: a string literal may only be printed
  if (n) { } else int z = 1;
}
