// Splitter: a `__cok__ { }` block with nested braces (structs, functions, if/else,
// initialiser lists, braces in strings and comments) ends at its own closing brace, and
// the __co__ function after it is found and checked with the right line numbers.
__cok__ {
  struct Pair { int a; int b; };
  extern "C" void kernel(int *x, int n) {
    Pair p = {1, {2}.a};  // braces in an initialiser
    if (n > 0) { for (int i = 0; i < n; ++i) { x[i] = p.a; } } else { x[0] = '}'; }
    const char *s = "}}}";   /* } } } */
    // }
  }
  namespace inner { template <int v> void tkernel() { { } } }
} // end of __cok__

__co__ void after_cok(s32 [8] a) {
  parallel p by 2 {
    f = dma.copy a.chunkat(p) => local;
    call kernel(f.data, |f.span|);
    call tkernel<#p>();
    int oops = not_declared;    // expect-error: 'not_declared' was not declared in this scope
  }
}
