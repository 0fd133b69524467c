// `inthreads` rejected as the reference does (tests/check/illegal_inthreads.co): only
// inside `parallel`, with a predicate that tells the instances apart.
__co__ void placement(int a) {
  inthreads (a > 1) {}                 // expect-error: 'inthreads' can only be inside 'parallel'
  parallel p by 3 {
    inthreads (p > 1) {
      inthreads.async (p < 1);         // expect-error: an inner 'inthreads' cannot be asynchronous
      inthreads (p < 2);
    }
    inthreads (p > 1)
      parallel q by 4;                 // expect-error: 'parallel' cannot be inside 'inthreads'
    inthreads (a);                     // expect-error: 'inthreads' needs a predicate on parallel variables, such as 'p < 2', not an int
  }
}

__co__ void divergence(int a, s32 [7, b] c) {
  parallel p by 3, q by 4 {
    inthreads (a > 0) {}               // expect-error: neither side of this comparison depends on a parallel variable
    inthreads (b > 0) {}               // expect-error: neither side of this comparison depends on a parallel variable
    inthreads (c.span(0) > 0) {}       // expect-error: neither side of this comparison depends on a parallel variable
    int d = 4;
    inthreads (d < 4) {}               // expect-error: 'inthreads' predicate must be strictly divergent
    inthreads (p > 3) {}
    inthreads (q < a) {}
    inthreads ((p == b) && (q < 4)) {}
    inthreads (!(p < #p - 1)) {}
    inthreads ((p > 0) && (d == 3)) {} // expect-error: neither side of this comparison depends on a parallel variable
    inthreads (p > q - 1) {}           // expect-error: both sides of this comparison depend on parallel variables
    inthreads (p < a || a > 3) {}      // expect-error: neither side of this comparison depends on a parallel variable
    e = p - 1;
    inthreads (e > 0) {}
  }
}

__co__ void compose(s32 [8, 8] x, int n) {
  parallel p by 2, q by 4 {
    with k in [8] {
      foreach k {
        dma.copy x.chunkat(p # q, k) => local;
        dma.copy x.chunkat(p # n, k) => local;   // expect-error: '#' composes bounded integers (from 'parallel ... by' or 'with ... in'), not an unbounded int
        pq = p # q;
        dma.copy x.chunkat(pq, k) => local;
        q1 = n #- 1;                             // expect-error: '#-' moves the bound of a bounded integer, not of an unbounded int
      }
    }
  }
}
