// Issue #11 (mismatched brackets), review R1: a wrong closer is read the way the rest of
// its line agrees with, so one mistake is one error. `{2, 2)` followed by one ')' for two
// open '(' is a missing '}' (the ')' closes the inner '('); followed by enough ')' it is a
// typo for '}'; also across lines and with '[' / '}' typos. No follow-on error at the ';'
// or the function end, and the next function is still checked.
__device__ void kernel(int *a, int n) {}

__co__ void missing_brace_in_parens(s32 [8, 8] x) {
  call kernel(x, |(x.span / {2, 2)|);   // expect-error: expected '}' before ')'
}

__co__ void missing_brace_nested(s32 [8, 8] x) {
  call kernel(x, (({1, 2}(0) + {3, 4)(1)));   // expect-error: expected '}' before ')'
}

__co__ void brace_typo_across_lines(s32 [8, 8] x) {
  call kernel(x, {1,
                  2));                  // expect-error: expected '}' before ')'
}

__co__ void paren_literal_across_lines(s32 [8, 8] x) {
  call kernel(x, ({1,
                   2));                 // expect-error: expected '}' before ')'
}

__co__ void bracket_closed_by_brace_in_call(s32 [8, 8] x) {
  call kernel(x, |[1, 2}|);             // expect-error: expected ']' before '}'
}

__co__ void bracket_closed_by_paren_in_decl(s32 [8, 8] x) {
  s32 [x.span / {2}) y;                 // expect-error: expected ']' before ')'
}

__co__ void tuple_typo_across_lines(s32 [8, 8] x) {
  t = {1,
       2);                              // expect-error: expected '}' before ')'
}

__co__ void checked_after(s32 [8] a) {
  int z = w;                            // expect-error: 'w' was not declared in this scope
}

int main() { return 0; }
