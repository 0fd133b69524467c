// Spec 3, "Basic Syntax of Call Statements": `call bar();` is fine inside `parallel-by`
// (foo) and illegal in host code (mou). Added: a stub device function 'bar'.
__device__ void bar() {}

__co__ void foo() {
  parallel p by 1 {
    call bar();  // ok
  }
}
__co__ void mou() {
  call bar();  // expect-error: can only be called inside 'parallel'
}
