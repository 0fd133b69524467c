// Spec 3, "Trigger C++ Template Instantiation": a runtime value as template argument is
// an error. Added: a stub device function template 'bar'.
template <int M> __device__ void bar() {}

__co__ void foo(int M) {
  parallel p by 1 {
    call bar<M>();  // expect-error: 'M' is a runtime value
  }
}
