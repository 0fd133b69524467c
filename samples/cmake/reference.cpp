#include "reference.h"

void reference_vadd_vmul(const int* a, const int* b, int* expect, int n) {
  for (int i = 0; i < n; ++i) expect[i] = (a[i] + b[i]) * a[i];
}
