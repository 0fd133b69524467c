// Spec 1, "Host, Device and Tileflow", tileflow part as written in the overview:
//   __co__ void choreo_function(...) { device_function(...); }
// Added: `...` replaced by `int n`. Spec 3 says a device function is called only with an
// explicit `call` statement, inside `parallel`, so the overview's plain call is an error.
__device__ void device_function(int n) {
  // High-performance device kernel implementation
}

__co__ void choreo_function(int n) {
  // ... choreo code ...
  device_function(n); // expect-error: needs the 'call' keyword inside 'parallel'
  // ...
}

void main() {
  choreo_function(4);
}
