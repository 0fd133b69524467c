// Rule (DESIGN.md 4, issue #11): returning data that an asynchronous copy may still be
// writing is a read before the `wait`, whether it is named as the data or as the future.
__co__ s32 [4, 8] returns_buffer(s32 [4, 8] a) {
  s32 [a.span] out;
  f = dma.copy.async a => out;      // expect-warning: 'f' is never waited
  return out;                       // expect-error: 'f' is read before 'wait f'
}

__co__ s32 [4, 8] returns_future(s32 [4, 8] a) {
  f = dma.copy.async a => global;   // expect-warning: 'f' is never waited
  return f;                         // expect-error: 'f.data' is read before 'wait f'
}

__co__ s32 [4, 8] waited(s32 [4, 8] a) {
  f = dma.copy.async a => global;
  wait f;
  return f;
}
