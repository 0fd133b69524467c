// Spec 2, "Scalar Types":
//   int a;
//   __co__ int foo(int b);
// Added: the prototype is followed by a definition whose body holds `int a;` and uses the
// integer arithmetic, shift, logical and boolean operations the section says are supported.
__co__ int foo(int b);

__co__ int foo(int b) {
  int a;
  a = b * 3 + (b << 2) - (b >> 1) % 5 / 2;
  a = (a & 0xff) | (b ^ 7);
  bool positive = a > 0 && !(b == 3) || b != 4;
  int from_bool = positive;
  bool from_int = a;
  return a + from_bool;
}
