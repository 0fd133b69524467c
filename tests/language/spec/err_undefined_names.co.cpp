// Undefined names in every kind of position.
__co__ void undefined(s32 [4, 8] a) {
  int x = y + 1;                         // expect-error: 'y' was not declared in this scope
  s32 [Q, 4] data;                       // expect-error: 'Q' was not declared in this scope
  parallel p by count {                  // expect-error: 'count' was not declared in this scope
    call kernel(missing);                // expect-error: 'missing' was not declared in this scope
    f = dma.copy nowhere => local;       // expect-error: 'nowhere' was not declared in this scope
  }
  parallel q by 4 {
    g = dma.copy a.chunkat(r, _) => local;   // expect-error: 'r' was not declared in this scope
    foreach z {}                          // expect-error: 'z' was not declared in this scope
  }
  int b = #w;                            // expect-error: 'w' was not declared in this scope
  int c = helper(3);                     // expect-error: 'helper' was not declared in this scope
}
