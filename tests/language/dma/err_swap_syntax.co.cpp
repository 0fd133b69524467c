// 'swap f, g;' and 'rotate f, g, h;' are statements without parentheses; any other name
// before such a list is a syntax error there (a parse error stops the file's checks, so
// this case has a file of its own).
__co__ void forms(s32 [4, 8] src) {
  parallel p by 1 {
    x = dma.copy.async src => local;
    y = dma.copy.async src => local;
    swap x, y;
    rotate x, y;
    twist x, y;                                     // expect-error: expected ';' before 'x'
    wait x, y;
  }
}
