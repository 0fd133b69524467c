// Syntax errors: each is reported once, at the offending token, and the parser goes on
// with the next statement (a missing ';' is inserted, other errors skip to the next ';'
// or block). A character that is not tileflow syntax is dropped after its error.
__device__ void kernel(int n) {}

__co__ void syntax_misc(s32 [8] a) {
  int x = 3 @ 4;               // expect-error: stray '@' in tileflow code
  with i in [4 {               // expect-error: expected ',' or ']' before '{'
  }
  f = dma.copy a => ;          // expect-error: expected expression before ';'
  int y = (1 + 2;              // expect-error: expected ')' before ';'
  int z = $;                   // expect-error: stray '$' in tileflow code
  parallel p by 2 {
    call kernel(1)             // expect-error: expected ';' before 'local'
    local s32 [4] b            // expect-error: expected ';' before '}'
  }
  int w = 4 x;                 // expect-error: expected ';' before 'x'
  s32 [4, 4 buf;               // expect-error: expected ',' or ']' before 'buf'
  foreach {}                   // expect-error: expected identifier before '}'
  int skipped = 0;             // (recovery resumes after the next ';': `foreach {x, y} in` is legal)
  parallel [q] by 4 {}         // expect-error: expected '{' before '['
  parallel q by 4 : 7 {}       // expect-error: expected identifier before '7'
  call ;                       // expect-error: expected identifier before ';'
  int ok = 1;
}
