// Spec 2, "The Storage Qualifier", written as in the spec, directly in the __co__
// function: `local`/`shared` data only exists inside `parallel`. Also the converse
// (global data declared inside `parallel`) and DMA into local memory outside it.
__co__ void storage_outside(s32 [10] g) {
  ndims : [20, 15];
  local f32 [10, 10] d0;       // expect-error: 'local' data can only be declared inside a 'parallel' block
  shared f16 [ndims] d1;       // expect-error: 'shared' data can only be declared inside a 'parallel' block
  f = dma.copy g => local;     // expect-error: a copy into 'local' memory must be inside 'parallel'
  parallel p by 2 {
    global f32 [4] d2;         // expect-error: 'global' data must be declared outside 'parallel'
    s32 [4] d3;                // expect-error: global by default
  }
}
