// Floating-point scalars, sized scalar type names and `call` as a value, run on every
// target: conversions as C makes them (the reference's tests/check/scalar_cast.co), f16
// and bf16 locals rounding what they hold, s16/u8 wrapping, mutable sized locals, an
// untyped float (`H = 50.0f;`), float conditions and printing, float parameters of the
// sized names (`bf16 scale`, `s32 n`), a host-level float read in a kernel, a float
// accumulator over data elements, computed float arguments, the values of calls and
// functions returning float, double and `auto` floating-point values.
// Expected values worked out by hand (see the comments).
__cok__ {
extern "C" int twice(int x) { return 2 * x; }
extern "C" float half_of(float x) { return x / 2; }
}

__co__ int convert(int i, float f, double d) {   // i = 300, f = 2.5, d = 7.9
  mutable float ff = i;             // 300
  mutable int dd = d;               // 7 (toward zero)  // expect-warning: implicit conversion from 'double' to 'int'
  mutable int a = 1.5;              // 1  // expect-warning: implicit conversion from 'double' to 'int'
  mutable int b = 10.5f;            // 10  // expect-warning: implicit conversion from 'float' to 'int'
  mutable int x = 1.5f + 13;        // 14  // expect-warning: implicit conversion from 'float' to 'int'
  mutable double y = i + 1.25f;     // 301.25
  mutable int z = i + 1.3f;         // 301  // expect-warning: implicit conversion from 'float' to 'int'
  mutable int p = (x > z) ? y : z;  // 301  // expect-warning: implicit conversion from 'double' to 'int'
  half h = 1.1;                     // f16: 1.099609375
  h += 2;                           // 3.099609375
  s16 w = 40000;                    // -25536
  u8 u = i;                         // 300 - 256 = 44
  s32 c = 555;
  c = u + w;                        // -25492
  float g = f * 2 - 0.5;            // 4.5
  double q = d / 2;                 // 3.95
  println("ff=", ff, " dd=", dd, " a=", a, " b=", b, " y=", y, " h=", h);
  println("w=", w, " u=", u, " c=", c, " g=", g, " q=", q);
  if (g > 4.25 && !(q < 0)) println("g is above 4.25");
  else println("g is not");
  bf16 t = 3.3;                     // bf16: 3.296875
  f8 e = 0.3;                       // f8_e4m3: 0.3125 (steps of 1/32 in [0.25, 0.5))
  H = 50.0f;
  mutable m = H / 4;                // 12.5
  m -= t;                           // 9.203125
  println("t=", t, " m=", m, " H>m=", H > m, " m*2=", m * 2, " e=", e);
  return x + z + p;                 // 616
}

__co__ f32 [4, 2] kernel(f32 [4, 8] a, f32 [8] v, bf16 scale, s32 n) {
  f32 [4, 2] out;
  float bias = 0.5f;
  float sc = scale;                 // f16 * bf16 has no common type: convert first
  parallel p by 4 {
    mutable f32 acc = 0;
    foreach k in [8] acc += a.at(p, k) * v.at(k);   // 0.5 * (8p + 28) = 4p + 14
    f16 r = acc;
    mutable int t = call twice(p + n);              // 2p + 2
    mutable float hv = call half_of(acc + bias);    // 2p + 7.25
    out.at(p, 0) = r * sc + bias + t;               // 8p + 23.5
    if (acc > 20) out.at(p, 1) = -hv;               // p = 2, 3
    else out.at(p, 1) = hv;
  }
  return out;
}

__co__ float twice_f(float x) { return x * 2; }                          // 2.5
__co__ auto quarter(double x, int n) { double y = x + n; return y / 4; }  // (0.5 + 2) / 4 = 0.625
__co__ double widen(half x) { return x; }                                 // f16(1.1) = 1.099609375

int main() {
  std::cout << convert(300, 2.5f, 7.9) << std::endl;
  std::printf("%.3f %.4f %.4f\n", twice_f(1.25f), quarter(0.5, 2), widen(croktile::f16(1.1f)));
  auto a = choreo::make_spandata<float>(4, 8);
  auto v = choreo::make_spandata<float>(8);
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 8; ++k) a[i][k] = i + k;
  v.fill(0.5f);
  auto r = kernel(a.view(), v.view(), croktile::bf16(1.5f), 1);
  for (int i = 0; i < 4; ++i) std::printf("%.2f %.2f\n", (double)r[i][0], (double)r[i][1]);
}
// expect-output: ff=300.000000 dd=7 a=1 b=10 y=301.250000 h=3.099609
// expect-output: w=-25536 u=44 c=-25492 g=4.500000 q=3.950000
// expect-output: g is above 4.25
// expect-output: t=3.296875 m=9.203125 H>m=true m*2=18.406250 e=0.312500
// expect-output: 616
// expect-output: 2.500 0.6250 1.0996
// expect-output: 23.50 7.25
// expect-output: 31.50 9.25
// expect-output: 39.50 -11.25
// expect-output: 47.50 -13.25
