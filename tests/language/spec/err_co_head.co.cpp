// Malformed __co__ heads (issue #36): a ';' inside the parameters, stray tokens, unbalanced
// brackets and a missing body are errors at their token, in definitions and prototypes
// alike (a ';' in the parameters made the head a prototype, the function's body host
// code, and no error at all); the functions after them are still found and checked.
__co__ void semi_in_params(;) {                  // expect-error: expected ')' before ';'
  int x = 1;
}
__co__ void semi_after_param(int n;              // expect-error: expected ',' or ')' before ';'
__co__ void extra_paren(int n)) { int y = n; }   // expect-error: extraneous ')'
__co__ void stray_word(int n) x { int y = n; }   // expect-error: expected '{' before 'x'
__co__ void stray_in_prototype(int n) x;         // expect-error: expected ';' before 'x'
__co__ int trailing_comma(s32 [4] a, );          // expect-error: syntax error before ')'
__co__ s32 [4 open_bracket(s32 [4] a) {          // expect-error: expected ',' or ']' before 'open_bracket'
  return a;
}
__co__ void no_body(int n)                       // expect-error: expected a function body after '__co__' declaration
__co__ void still_checked() {
  int z = undeclared_name;                       // expect-error: 'undeclared_name' was not declared in this scope
}

int main() { return 0; }
