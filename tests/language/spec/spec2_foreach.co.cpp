// Spec 2, "The 'foreach' Block". Added: the enclosing __co__ function.
__co__ void foreach_block() {
  with x in [10] {
    foreach x {
      // do something with each x
    }
  }
}
