// The conversions device code uses for the narrow float types (the OpenCL prelude's own
// implementation on opencl, runtime/croktile_minifloat.h elsewhere), over every encoding:
// each byte decoded to float and encoded back must agree with the host's runtime types.
__cok__ {
extern "C" void convert(unsigned char* bits, float* v, unsigned char* back, int n) {
  for (int i = 0; i < n; ++i) {
    v[i] = croktile_f8_e4m3_to_f32(bits[i]);
    v[n + i] = croktile_f8_e5m2_to_f32(bits[i]);
    v[2 * n + i] = croktile_f6_e2m3_to_f32(bits[i] & 63);
    v[3 * n + i] = croktile_f6_e3m2_to_f32(bits[i] & 63);
    v[4 * n + i] = croktile_f4_e2m1_to_float(bits[i] & 15);   // f16's spelling
    // rounding: halfway between i/16 steps, beyond the ranges, NaN and infinity
    float x = (float)(i - 128) * 0.40625f;
    back[i] = croktile_f32_to_f8_e4m3(x * 8.0f) ^ croktile_f32_to_f8_e5m2(x * 300.0f) ^
              croktile_f32_to_f6_e2m3(x) ^ croktile_f32_to_f6_e3m2(x) ^ croktile_float_to_f4_e2m1(x);
  }
  back[0] = croktile_f32_to_f8_e4m3(1.0f / 0.0f) ^ croktile_f32_to_f8_e5m2(-1.0f / 0.0f);
  back[1] = croktile_f32_to_f8_e4m3(0.0f / 0.0f) & 127;   // the sign of 0/0 differs by compiler
}
}

__co__ u8 [256] decode(u8 [256] bits, f32 [5, 256] values) {
  u8 [256] back;
  parallel p by 1 {
    b = dma.copy bits => local;
    local f32 [5, 256] v;
    local u8 [256] k;
    call convert(b.data, v, k, 256);
    dma.copy v => values;
    dma.copy k => back;
  }
  return back;
}

template <typename T>
static int mismatches(const float* got, unsigned mask) {
  int bad = 0;
  for (unsigned b = 0; b < 256; ++b) {
    const float want = float(T::from_bits(std::uint8_t(b & mask)));
    if (!(got[b] == want || (got[b] != got[b] && want != want))) ++bad;
  }
  return bad;
}

int main() {
  unsigned char bits[256];
  for (int i = 0; i < 256; ++i) bits[i] = (unsigned char)i;
  auto values = choreo::make_spandata<float>(5, 256);
  auto back = decode(choreo::make_spanview<1>(bits, {256}), values.view());
  std::printf("%d %d %d %d %d\n", mismatches<choreo::f8_e4m3>(values.data(), 255),
              mismatches<choreo::f8_e5m2>(values.data() + 256, 255), mismatches<choreo::f6_e2m3>(values.data() + 512, 63),
              mismatches<choreo::f6_e3m2>(values.data() + 768, 63), mismatches<choreo::f4_e2m1>(values.data() + 1024, 15));
  int bad = 0;
  for (int i = 2; i < 256; ++i) {
    float x = (float)(i - 128) * 0.40625f;
    unsigned want = choreo::f8_e4m3(x * 8.0f).bits ^ choreo::f8_e5m2(x * 300.0f).bits ^ choreo::f6_e2m3(x).bits ^
                    choreo::f6_e3m2(x).bits ^ choreo::f4_e2m1(x).bits;
    bad += back[i] != want;
  }
  std::printf("%d %d %d\n", bad, int(back[0]), int(back[1]));
}
// 0x7e (e4m3 saturates infinity to 448) ^ 0xfc (e5m2 -infinity) = 0x82; e4m3 NaN is 0x7f.
// expect-output: 0 0 0 0 0
// expect-output: 0 130 127
