// Element statements on the 8-, 6- and 4-bit floats compute in float and round the
// result to nearest even (ties to the even mantissa) on every target; on factor the
// device module has the types themselves (runtime/croktile_minifloat.h).

#define ADD(T, NAME)                                      \
  __co__ auto NAME(T [2] a, T [2] b) {                    \
    T [2] out;                                            \
    parallel p by 1 {                                     \
      x = dma.copy a => local;                            \
      y = dma.copy b => local;                            \
      local T [2] s;                                      \
      foreach i in [2]                                    \
        s.at(i) = x.data.at(i) + y.data.at(i);            \
      dma.copy s => out;                                  \
    }                                                     \
    return out;                                           \
  }
ADD(f8_e4m3, add_e4m3)
ADD(f6_e2m3, add_e2m3)
ADD(f4_e2m1, add_e2m1)

template <typename T>
void run(const char* name, float a0, float a1, float b0, float b1,
         choreo::spanned_data<T, 1> (*f)(choreo::spanned_view<T, 1>, choreo::spanned_view<T, 1>)) {
  auto a = choreo::make_spandata<T>(2);
  auto b = choreo::make_spandata<T>(2);
  a[0] = T(a0); a[1] = T(a1); b[0] = T(b0); b[1] = T(b1);
  auto s = f(a.view(), b.view());
  std::cout << name << " " << (float)s[0] << " " << (float)s[1] << "\n";
}

int main() {
  run<choreo::f8_e4m3>("f8_e4m3", 1.5f, 1.5f, 0.25f, 0.1875f, add_e4m3);
  run<choreo::f6_e2m3>("f6_e2m3", 2.5f, 3.5f, 3.0f, 3.75f, add_e2m3);
  run<choreo::f4_e2m1>("f4_e2m1", 1.5f, 2.0f, 1.5f, 3.0f, add_e2m1);
}

// 1.5 + 0.25 = 1.75; 1.5 + 0.1875 = 1.6875, halfway between 1.625 and 1.75 (even)
// expect-output: f8_e4m3 1.75 1.75
// 2.5 + 3 = 5.5; 3.5 + 3.75 = 7.25, halfway between 7 (even) and 7.5
// expect-output: f6_e2m3 5.5 7
// 1.5 + 1.5 = 3; 2 + 3 = 5, halfway between 4 (even) and 6
// expect-output: f4_e2m1 3 4
