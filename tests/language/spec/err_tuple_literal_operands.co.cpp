// Issue #11: an i-tuple literal is checked as the named i-tuple with the same values
// would be (spec 2, "Operations over mdspan and i-tuple"); test_tuple_literals.py
// compares the messages of both forms.
__device__ void kernel(int *a, int n) {}

__co__ void literals(s32 [8, 16] input) {
  a : input.span / {2, 4, 1};     // expect-error: '/' between an mdspan of rank 2 and an ituple of 3 elements: their lengths must be equal
  b : input.span / {2, 0};        // expect-error: division by zero
  c = {2, 4, 1} * input.span;     // expect-error: '*' between an ituple of 3 elements and an mdspan of rank 2
  d = {1, 2.5};                   // expect-error: an ituple holds integers, not float
  e = {1, 2} == {1, 2};           // expect-error: invalid operands to binary '==' (have ituple of 2 elements and ituple of 2 elements)
  f = {1, input.span};            // expect-error: an ituple holds integers, not mdspan
  parallel p by 2 {
    g = dma.copy input.chunkat(p, {1}) => local;  // expect-error: chunkat index is not bounded
    call kernel<{4, 4}>(g.data, 1);  // expect-error: template argument 1 of 'kernel' must be an integer constant, not ituple
    call kernel({1, 2}, 1);       // expect-error: an ituple of 2 elements cannot be passed to a device function
  }
}

__co__ void syntax(s32 [8, 16] input) {
  a : input.span / {};            // expect-error: expected expression before '}'
  c : input.span / {2 4};         // expect-error: expected '}' before '4'
  e : input.span @ {2, 4};        // expect-error: stray '@' in tileflow code
  f : input.span / / {2, 4};      // expect-error: expected expression before '/'
  g = ({2, 4};                    // expect-error: expected ')' before ';'
  h = input.span {2, 4};          // expect-error: expected ';' before '{'
  d : input.span / {2, 4};        // a correct line after the errors: no cascade
}

// the function after them is found and checked: the literals above did not swallow it
__co__ void after_syntax() {
  int z = w;                      // expect-error: 'w' was not declared in this scope
}
