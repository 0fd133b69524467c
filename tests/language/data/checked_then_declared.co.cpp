// Locals declared after a run-time-checked element read, in one thread's code: a failed
// check leaves the thread's statements by a jump to their end, which on cuda must not pass
// the locals' declarations in their scope (nvcc's "transfer of control bypasses
// initialization"); the statements are a block of their own there.
#include <iostream>

__co__ auto rotated_sum(f32 [N] a, int sh) {
  f32 [N] out;
  parallel p by cdiv(N, 32) : block {
    parallel t by 32 : thread {
      float x0 = a.at((p # t + sh) % N);
      float x1 = a.at((p # t + 2 * sh) % N);
      out.at((p # t) % N) = x0 + x1;
    }
  }
  return out;
}

int main() {
  auto a = croktile::make_spandata<croktile::f32>(64);
  for (int k = 0; k < 64; ++k) a[k] = k;
  auto o = rotated_sum(a.view(), 3);
  for (int k = 0; k < 64; ++k)
    if (o[k] != (float)((k + 3) % 64 + (k + 6) % 64)) {
      std::cout << "wrong at " << k << "\n";
      return 1;
    }
  std::cout << "sums " << o[0] << " " << o[63] << "\n";
}
// expect-output: sums 9 7
