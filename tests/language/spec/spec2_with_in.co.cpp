// Spec 2, "The 'with-in' Block and 'where' Clause": the three forms of `with`.
// Added: the enclosing __co__ function; the `{...}` bodies are empty.
__co__ void with_in() {
  with index in [10, 10] {
  // index is ituple with 2 elements
  }
  with {x, y} in [10, 10] {}
  with index = {x, y} in [10, 10] {}
}
