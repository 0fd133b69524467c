// Syntax: an extra '}' closes the __co__ function early; the rest of its body would land
// in host C++. The frontend reports the closing brace that has nothing to close.
__device__ void kernel(int n) {}

__co__ void stray_brace() {
  parallel p by 1 {
    call kernel(1);
  }
  }
  int after = 1;
} // expect-error: extraneous closing brace
