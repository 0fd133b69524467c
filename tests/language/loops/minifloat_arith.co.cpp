// Arithmetic on two elements of the same 6- or 4-bit float type rounds to that type (as
// the reference, whose f6/f4 types are CUTLASS types with arithmetic in their own type),
// also when the result is stored as f32; with another type it is float arithmetic.
// Expected values worked out by hand: f4_e2m1 holds 0 0.5 1 1.5 2 3 4 6, f6_e2m3 steps
// by 0.125 in [1, 2), 0.25 in [2, 4), 0.5 in [4, 7.5]; halfway rounds to the even mantissa.
// targets: cpu opencl cuda
// (factor computes with no 8/6/4-bit float elements: an error at the statement.)

__co__ f32 [3, 8] arith(f4_e2m1 [8] a, f4_e2m1 [8] b, f6_e2m3 [8] c, f6_e2m3 [8] d) {
  f32 [3, 8] out;
  parallel p by 1 {
    foreach i in [8] {
      out.at(0, i) = a.at(i) + b.at(i);
      out.at(1, i) = c.at(i) * d.at(i);
      out.at(2, i) = a.at(i) + c.at(i);
    }
  }
  return out;
}

int main() {
  const float av[8] = {2, 0.5, 3, 3, -2, 6, 4, 1}, bv[8] = {0.5, 0.5, 0.5, 3, -0.5, 0, 1, 0};
  const float cv[8] = {1.5, 1.25, 2.5, 1.75, 2.25, 3, 1.125, 0.5};
  const float dv[8] = {1.25, 1.25, 1.5, 1.75, 1.25, 2.5, 1.125, 0.5};
  auto a = choreo::make_spandata<choreo::f4_e2m1>(8);
  auto b = choreo::make_spandata<choreo::f4_e2m1>(8);
  auto c = choreo::make_spandata<choreo::f6_e2m3>(8);
  auto d = choreo::make_spandata<choreo::f6_e2m3>(8);
  for (int i = 0; i < 8; ++i) {
    a[i] = choreo::f4_e2m1(av[i]);
    b[i] = choreo::f4_e2m1(bv[i]);
    c[i] = choreo::f6_e2m3(cv[i]);
    d[i] = choreo::f6_e2m3(dv[i]);
  }
  auto out = arith(a.view(), b.view(), c.view(), d.view());
  const char* names[3] = {"f4_sum", "f6_product", "mixed_sum"};
  for (int r = 0; r < 3; ++r) {
    std::cout << names[r];
    for (int i = 0; i < 8; ++i) std::cout << " " << out[r][i];
    std::cout << "\n";
  }
}

// expect-output: f4_sum 2 1 4 6 -2 6 4 1
// expect-output: f6_product 1.875 1.5 3.75 3 2.75 7.5 1.25 0.25
// expect-output: mixed_sum 3.5 1.75 5.5 4.75 0.25 9 5.125 1.5
