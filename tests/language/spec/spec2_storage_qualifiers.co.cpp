// Spec 2, "The Storage Qualifier": local and shared data.
// Added: the enclosing __co__ function and a `parallel` block around the two declarations,
// since `local`/`shared` data belongs to an instance of a parallel level (DESIGN.md 4).
// As written, outside `parallel`, it is an error: see err_local_outside_parallel.co.cpp.
__co__ void storage_qualifiers() {
  ndims : [20, 15];
  parallel p by 2 {
    local f32 [10, 10] d0;
    shared f16 [ndims] d1;
  }
}
