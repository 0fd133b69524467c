// Redefinition of variables, data, futures and __co__ functions.
__co__ void redefine(s32 [4] a, int n) {
  int x = 1;
  int x = 2;                   // expect-error: redefinition of 'x'
  s32 [4] buf;
  s32 [8] buf;                 // expect-error: redefinition of 'buf'
  int n = 3;                   // expect-error: redefinition of 'n'
  parallel p by 2 {
    f = dma.copy a => local;
    f = dma.copy a => local;   // expect-error: future 'f' is already defined
    int p = 1;                 // expect-error: redefinition of 'p'
  }
}

__co__ void twice() {}
__co__ void twice() {}         // expect-error: redefinition of __co__ function 'twice'
