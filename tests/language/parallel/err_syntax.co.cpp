// Syntax of `parallel` levels and their bodies (tests/parse/error_parallel_by2.co).
__co__ void f() {
  parallel [p] by 6 { }                // expect-error: expected '{' before '['
  parallel.later by 2;                 // expect-error: expected 'async' after '.', not 'later'
  parallel p by 4 : 7 {}               // expect-error: expected identifier before '7'
}
