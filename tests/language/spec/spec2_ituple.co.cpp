// Spec 2, "I-Tuple Types": the two ways to define an i-tuple.
//   ituple index = {5, 4, 3, 2, 1}; index = {a, b};
// Added: one enclosing __co__ function per line: both lines define 'index', and once
// defined an ituple cannot be assigned. 'a' and 'b' are integer parameters.
__co__ void ituple_annotated() {
  ituple index = {5, 4, 3, 2, 1}; // It defines a tuple of 5 elements
}

__co__ void ituple_deduced(int a, int b) {
  index = {a, b}; // 'a' and 'b' are existing integers
}
