// Syntax: a missing ';' is reported (gcc-style) right after the token that needs it, on
// the line where it is missing; the parser recovers at the next ';' and goes on.
__device__ void kernel(int n) {}

__co__ void missing_semi() {
  int x = 3 // expect-error: expected ';' before 'int'
  int y = 4;
  parallel p by 2 {
    call kernel(y) // expect-error: expected ';' before '}'
  }
  int z = 5 // expect-error: expected ';' before '}'
}
