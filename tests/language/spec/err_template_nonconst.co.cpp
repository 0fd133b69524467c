// Rule (spec 3): template arguments must be compile-time constants.
template <int A> __device__ void k1() {}
template <int A, int B> __device__ void k2() {}

__co__ void template_args(s32 [M, 16] a, int n) {
  int four = 4;
  parallel p by 4 {
    call k1<n>();                // expect-error: template argument 1 of 'k1' is not a compile-time constant ('n' is a runtime value)
    call k1<a.span(0)>();        // expect-error: ('M' is a runtime value)
    call k2<a.span(1), M / 4>(); // expect-error: template argument 2 of 'k2' is not a compile-time constant
    call k1<p>();                // expect-error: template argument 1 of 'k1' is not a compile-time constant
    call k1<3.5>();              // expect-error: template argument 1 of 'k1' must be an integer constant
    call k1<a>();                // expect-error: must be an integer constant, not spanned data
    // constants folded from shapes, bounds and initialised locals are fine
    call k2<a.span(1) / #p, four * 2>();
  }
}
