// Only `mutable` scalars (and spec 2's `int a;`, declared without a value) may be
// assigned; what is computed once (mdspans, i-tuples, shapes, bounds, counts) may not
// read a mutable; `mutable` needs a type or a value, and an integer or boolean.
__co__ void mutables(int n) {
  int b = 3;
  b = 4;                       // expect-error: only mutables can be re-assigned: 'b' is not 'mutable'
  c = 1;
  c += 2;                      // expect-error: only mutables can be re-assigned: 'c'
  n -= 1;                      // expect-error: only mutables can be re-assigned: 'n'
  int a;
  a = 5;
  mutable m = 2;
  m *= a;
  s : [m, 4];                  // expect-error: an mdspan cannot use the mutable value 'm'
  t = {1, m};                  // expect-error: an ituple cannot use the mutable value 'm'
  with i in [m] { }            // expect-error: a 'with' bound cannot use the mutable value 'm'
  parallel p by a { }          // expect-error: a 'parallel' count cannot use the mutable value 'a'
  mutable d;                   // expect-error: cannot deduce the type of 'd'
  mutable e = {1};             // expect-error: 'e' of ituple of 1 element cannot be 'mutable'
}
