// Spec 2, "Async Operation: the DMA Statement": an asynchronous copy and its wait.
// Added: the enclosing __co__ function; `local` data lives inside `parallel`, global data
// outside it, so the local buffer, the copy and the wait moved into `parallel p by 1`.
__co__ void dma_async() {
  global f32 [10] g_data;
  parallel p by 1 {
    local f32 [10] l_data;
    f = dma.copy.async g_data => l_data;
    // ... async operations
    wait f; // explicit wait
  }
}
