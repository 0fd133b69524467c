// Spec 2, "Parallel Region: the 'parallel-by' Block". Added: the enclosing __co__ function.
__co__ void parallel_by() {
  parallel p by 6 {
  // SPMD code
  }
}
