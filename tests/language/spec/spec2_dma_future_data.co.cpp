// Spec 2, "Async Operation: the DMA Statement": copying into compiler-allocated local
// memory and reading it through the future:
//   global f32 [10] data; f = dma.copy data => local; ... f.data;
// Added: the enclosing __co__ function, `parallel p by 1` around the copy (local memory
// exists only inside `parallel`), and a device function that uses f.data. The bare
// `f.data;` statement is kept and draws gcc's "statement has no effect" warning.
__device__ void consume(float *data, int n) {}

__co__ void future_data() {
  global f32 [10] data;
  parallel p by 1 {
    f = dma.copy data => local;
    f.data; // expect-warning: statement has no effect
    call consume(f.data, |f.span|); // retrieve the 'local' data from the future
  }
}
