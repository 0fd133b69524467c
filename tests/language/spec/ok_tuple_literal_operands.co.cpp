// Issue #11: an i-tuple literal `{a, b}` is an operand wherever a named i-tuple may
// stand (spec 2, "Operations over mdspan and i-tuple": mdspan / + % * - i-tuple).
// test_tuple_literals.py checks that each form lowers exactly as the named i-tuple does.
__device__ void kernel(int *a, int n) {}

__co__ s32 [8, 16] tiles(s32 [8, 16] input, int n) {
  s32 [input.span] out;
  tile : input.span / {2, 4};          // an mdspan definition
  grown = tile + {1, 2};               // the five tuple-span operations
  shrunk = grown - {1, 2};
  scaled = tile * {1, 4};
  rest = input.span % {3, 5};
  both = {2, 4} * {1, 2};              // i-tuple with i-tuple, literal on the left
  twice = {1, 2} * 2;                  // i-tuple with an integer
  one = {n} + 1;                       // a one-element i-tuple is its integer
  nested = input.span / ({2, 2} * {1, 2});
  ituple index = {2, 4};               // definitions keep working
  index2 = {n, n + 1};
  mdspan<2> m : {4, 8};
  parallel p by 2 {
    with {j} in {4} {                  // an i-tuple as the bounds of 'with'
      foreach j {
        a = dma.copy input.chunkat(p, j) => local;
        local s32 [input.span / {2, 4}] c;
        call kernel(c, |(input.span / {2, 4})|);
        call kernel(a.data, {2} * 2);
        dma.copy c => out.chunkat(p, j);
      }
    }
  }
  return out;
}
