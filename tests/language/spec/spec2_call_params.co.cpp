// Spec 2, "Parameters Passing between Croktile and C++ Function": verbatim, with the
// `#include "croktile.h"` line (passed through to the target compiler).
#include "croktile.h"
void bar(const float* data, unsigned size) {}
__co__ void foo(f32 mdspan<2> d) {
  parallel p by 6 {
    call bar(d, |d|); // Call the C++ function
  }
}
void foobar(float* a) {
  foo(croktile::make_spanview<2>(a, {1, 2}));
}
