// Spec 2, "Fully-Typing": data definitions need an element type and an mdspan.
// Added: the enclosing __co__ function. No storage qualifier: global data, declared
// outside any `parallel`.
__co__ void fully_typing() {
  ndims : [20, 15];
  f32 [10, 10] d0;
  f16 [ndims] d1;
}
