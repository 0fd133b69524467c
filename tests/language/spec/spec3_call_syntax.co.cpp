// Spec 3, "Basic Syntax of Call Statements":
//   call func-name <optional-template-args> (arguments);
// Added: calls in that general form, with and without template arguments, with spaces
// around '<' '>' and '(', an empty template argument list and no arguments; stub devices.
template <int A, int B> __device__ void tk(int *x, int n) {}
template <int A> __device__ void tk1() {}
template <typename... T> __device__ void variadic() {}
__device__ void plain() {}

__co__ void call_forms(s32 [8] a, int n) {
  parallel p by 2 {
    local s32 [4] buf;
    call plain();
    call plain ( );
    call tk<4, 2>(buf, n);
    call tk <#p * 2, 8 / 4> (buf, |buf|);
    call tk1<(3 + 1) << 1>();
    call variadic<>();
  }
}
