// Spec 2, "Function Calls and Call Croktile Function": calling a C++ kernel with `call`.
// Added: `void bar() {...}` got the body `{ /* ... */ }`.
void bar() { /* ... */ } // C++ kernel function
__co__ void foo() {
  parallel p by 6 {
    call bar(); // Call the C++ function
  }
}
