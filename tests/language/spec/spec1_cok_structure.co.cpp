// Spec 1, "Transpilation and Compilation": the Croktile-OpenCL structure with `__cok__`.
// Added: the `{ ... }` bodies became `{ /* ... */ }` and `choreo_function(...)` takes no
// parameters (`...` is not tileflow syntax). The `__cok__` block is device C++ and is
// copied through unchanged, so its variadic `(...)` parameter list stays.
__cok__ {
  void device_function(...) { /* ... */ }
} // end of __cok__

__co__ void choreo_function() { /* ... */ }

void foo() { /* ... */ }
