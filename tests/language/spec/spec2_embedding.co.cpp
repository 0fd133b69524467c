// Spec 2, "Embedding Croktile within C++": a __co__ function between C++ code, called by
// its name from C++. Verbatim.
// some C++ code
__co__ void croktile_function() {
// croktile code
}
// another C++ code
void foo() {
croktile_function();
}
