// Rule (issue #11): only a one-element ituple is an integer; one of several elements is
// rejected where an integer is expected, in every context that accepts a one-element one
// (ok_ituple_single_as_int.co.cpp). An unbounded one-element ituple is an integer
// without a bound, so it is no chunkat index.
__device__ void kernel(int *x, int n) {}
template <int N> __device__ void tkernel(int *x, int n) {}

__co__ int pairs(s32 [4, 8] a) {
  with ij in [4, 2] {
    foreach ij {
      int j = ij;                  // expect-error: cannot initialise 'int j' with ituple of 2 elements
      bool b = ij;                 // expect-error: cannot initialise 'bool b' with ituple
      int k = 0;
      k = ij;                      // expect-error: cannot assign ituple of 2 elements to 'int k'
      int m = -ij;                 // expect-error: invalid operand to unary '-' (have ituple of 2 elements)
      int n = ij < 3;              // expect-error: invalid operands to binary '<' (have ituple of 2 elements and int)
      int t = ij ? 1 : 0;          // expect-error: '?:' works on integers and booleans only
      sp : [ij, 4];                // expect-error: a dimension must be an integer or an mdspan, not a bounded ituple
      tt = {ij, 1};                // expect-error: an ituple holds integers, not ituple
    }
  }
  parallel p by 4 {
    pair = {2, 3};
    one = {1};
    local s32 [2] y;
    call kernel(y, pair);          // expect-error: an ituple of 2 elements cannot be passed to a device function
    call tkernel<pair>(y, 1);      // expect-error: template argument 1 of 'tkernel' must be an integer constant, not ituple
    parallel q by pair {}          // expect-error: the parallel variable 'q' cannot take 2 bounds
    dma.copy a.chunkat(p, one) => local;   // expect-error: is not bounded; bind it with 'parallel ... by'
  }
  pair = {2, 3};
  return pair;                     // expect-error: returning ituple of 2 elements from a function returning 'int'
}
