// Issue #11: a bracket closed by the wrong kind of bracket is reported at the stray
// closer, with a note at the opener it fails to match (as clang does), not as an
// unterminated function. Every pair of opener and wrong closer, at several depths, in
// __co__ and __cok__ code; test_splitter.py checks the columns of error and note.
__device__ void kernel(int n) {}

__co__ void brace_closed_by_paren(s32 [8] a) {
  parallel p by 2 {
    call kernel(1);
  )                                  // expect-error: expected '}' before ')'
}

__co__ void brace_closed_by_bracket(s32 [8] a) {
  parallel p by 2 {
    with {i} in [4] {
      foreach i {
        call kernel(1);
      ]                              // expect-error: expected '}' before ']'
    }
  }
}

__co__ void paren_closed_by_brace(s32 [8] a) {
  parallel p by 2 {
    call kernel((1 + 2 };           // expect-error: expected ')' before '}'
  }
}

__co__ void paren_closed_by_bracket(s32 [8] a) {
  parallel p by 2 {
    int x = (1 + 2];                 // expect-error: expected ')' before ']'
  }
}

__co__ void bracket_closed_by_paren(s32 [8] a) {
  s32 [8, 8) b;                      // expect-error: expected ']' before ')'
}

__co__ void bracket_closed_by_brace(s32 [8] a) {
  parallel p by 2 {
    with {i} in [4} {                // expect-error: expected ']' before '}'
    }
  }
}

__co__ void tuple_closed_by_paren(s32 [8, 8] a) {
  sp : a.span / ({2, 2));            // expect-error: expected '}' before ')'
  t = {1, 2];                        // expect-error: expected '}' before ']'
}

__co__ void unclosed_paren(s32 [8] a) {
  parallel p by 2 {
    call kernel(1;                   // expect-error: expected ',' or ')' before ';'
  }
}

__co__ void stray_closers(s32 [8] a) {
  int x = (1 + 2]);                  // expect-error: expected ')' before ']'
  int y = 1);                        // expect-error: expected ';' before ')'
}

__cok__ {
  void device_helper(int n) {
    int v[2] = {n, n);               // expect-error: expected '}' before ')'
  }
}

// after the errors above, the functions that follow are still found and checked
__co__ void checked_after(s32 [8] a) {
  int z = w;                         // expect-error: 'w' was not declared in this scope
}

int main() { return 0; }
