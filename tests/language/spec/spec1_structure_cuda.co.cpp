// Spec 1, "Host, Device and Tileflow": the structure of a Croktile-CUDA/Cute program.
// Added: the `...` parameter lists became `int n`, and the device function is called the
// way spec 3 requires, with `call` inside a `parallel` block (the overview's plain
// `device_function(...);` is checked in spec1_structure_plain_call.co.cpp).
// `void main()` is kept as the spec writes it: host code is not checked by the frontend.

// Device program: typically runs on GPU/NPU
__device__ void device_function(int n) {
  // High-performance device kernel implementation
}

// Tileflow program: orchestrating data movement
__co__ void choreo_function(int n) {
  // ... choreo code ...
  parallel p by 1 {
    call device_function(n);
  }
  // ...
}

// Host program: typically runs on CPU
void main() {
  // ... prepare data ...
  choreo_function(4);
  // ...
}
