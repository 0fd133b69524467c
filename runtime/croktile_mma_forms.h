// croktile_mma_forms.h - the warp-level tensor-core instructions (PTX mma.sync.aligned
// and mma.sp, row.col) that croktile::mma can issue: one table, CROKTILE_MMA_FORMS, and
// the trait croktile::mma::form<IM, IN, IK, TA, TB, TC, SPARSE> built from it.
//
// croktile_driver/frontend/mma_forms.py holds the same table for the compiler's checks;
// tests/runtime/test_mma_cpu.py keeps the two equal. Element types are croktile's
// (f16, bf16, f8_e4m3, ...); tf32 operands are float in memory and in fragments.
#pragma once

#include <cstdint>

#include "croktile_half.h"

namespace croktile {
namespace mma {
namespace ptx {
// The table's type names, so that each row reads like the PTX instruction it stands for.
using f16 = croktile::f16;
using bf16 = croktile::bf16;
using tf32 = float;
using f32 = float;
using f64 = double;
using s8 = std::int8_t;
using u8 = std::uint8_t;
using s32 = std::int32_t;
using e4m3 = croktile::f8_e4m3;
using e5m2 = croktile::f8_e5m2;
}  // namespace ptx

// X(IM, IN, IK, A type, B type, C type, sparse, min sm, operand signature, instruction).
// The signature names the register counts (CROKTILE_MMA_SIG_*, below). The m8n8k4 f16
// form is computed by m16n8k8 with the extra rows and k zero (its own quad-pair layout
// does not fit a warp-wide tile), and m8n8k16 f16/bf16 (8-row tiles, the reference's
// wmma m8n32k16) by m16n8k16 with the extra rows zero: the EMU signatures.
#define CROKTILE_MMA_FORMS(X)                                                                          \
  X(16, 8, 16, f16, f16, f16, 0, 80, R2_A4_B2, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16")   \
  X(16, 8, 16, f16, f16, f32, 0, 80, F4_A4_B2, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")   \
  X(16, 8, 8, f16, f16, f16, 0, 80, R2_A2_B1, "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16")     \
  X(16, 8, 8, f16, f16, f32, 0, 80, F4_A2_B1, "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32")     \
  X(8, 8, 4, f16, f16, f16, 0, 80, EMU_R2, "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16")        \
  X(8, 8, 4, f16, f16, f32, 0, 80, EMU_F4, "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32")        \
  X(8, 8, 16, f16, f16, f16, 0, 80, EMU16_R2, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16")     \
  X(8, 8, 16, f16, f16, f32, 0, 80, EMU16_F4, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")     \
  X(8, 8, 16, bf16, bf16, f32, 0, 80, EMU16_F4, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32") \
  X(16, 8, 16, bf16, bf16, f32, 0, 80, F4_A4_B2, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32") \
  X(16, 8, 8, bf16, bf16, f32, 0, 80, F4_A2_B1, "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32")  \
  X(16, 8, 4, tf32, tf32, f32, 0, 80, F4_A2_B1, "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32")  \
  X(16, 8, 8, tf32, tf32, f32, 0, 80, F4_A4_B2, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32")  \
  X(16, 8, 16, s8, s8, s32, 0, 80, R4_A2_B1, "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32")       \
  X(16, 8, 16, s8, u8, s32, 0, 80, R4_A2_B1, "mma.sync.aligned.m16n8k16.row.col.s32.s8.u8.s32")       \
  X(16, 8, 16, u8, s8, s32, 0, 80, R4_A2_B1, "mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32")       \
  X(16, 8, 16, u8, u8, s32, 0, 80, R4_A2_B1, "mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32")       \
  X(16, 8, 32, s8, s8, s32, 0, 80, R4_A4_B2, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32")       \
  X(16, 8, 32, s8, u8, s32, 0, 80, R4_A4_B2, "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32")       \
  X(16, 8, 32, u8, s8, s32, 0, 80, R4_A4_B2, "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32")       \
  X(16, 8, 32, u8, u8, s32, 0, 80, R4_A4_B2, "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32")       \
  X(8, 8, 16, s8, s8, s32, 0, 80, R2_A1_B1, "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32")         \
  X(8, 8, 16, s8, u8, s32, 0, 80, R2_A1_B1, "mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32")         \
  X(8, 8, 16, u8, s8, s32, 0, 80, R2_A1_B1, "mma.sync.aligned.m8n8k16.row.col.s32.u8.s8.s32")         \
  X(8, 8, 16, u8, u8, s32, 0, 80, R2_A1_B1, "mma.sync.aligned.m8n8k16.row.col.s32.u8.u8.s32")         \
  X(16, 8, 32, e4m3, e4m3, f16, 0, 89, R2_A4_B2, "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16") \
  X(16, 8, 32, e4m3, e5m2, f16, 0, 89, R2_A4_B2, "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16") \
  X(16, 8, 32, e5m2, e4m3, f16, 0, 89, R2_A4_B2, "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e4m3.f16") \
  X(16, 8, 32, e5m2, e5m2, f16, 0, 89, R2_A4_B2, "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16") \
  X(16, 8, 32, e4m3, e4m3, f32, 0, 89, F4_A4_B2, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32") \
  X(16, 8, 32, e4m3, e5m2, f32, 0, 89, F4_A4_B2, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32") \
  X(16, 8, 32, e5m2, e4m3, f32, 0, 89, F4_A4_B2, "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32") \
  X(16, 8, 32, e5m2, e5m2, f32, 0, 89, F4_A4_B2, "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32") \
  X(8, 8, 4, f64, f64, f64, 0, 80, D2_A1_B1, "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64")       \
  X(16, 8, 4, f64, f64, f64, 0, 90, D4_A2_B1, "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64")     \
  X(16, 8, 8, f64, f64, f64, 0, 90, D4_A4_B2, "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64")     \
  X(16, 8, 16, f64, f64, f64, 0, 90, D4_A8_B4, "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64")   \
  X(16, 8, 16, f16, f16, f32, 1, 80, SP_F4_A2_B2, "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") \
  X(16, 8, 32, f16, f16, f32, 1, 80, SP_F4_A4_B4, "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32") \
  X(16, 8, 16, bf16, bf16, f32, 1, 80, SP_F4_A2_B2, "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32") \
  X(16, 8, 32, bf16, bf16, f32, 1, 80, SP_F4_A4_B4, "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32") \
  X(16, 8, 64, e4m3, e4m3, f32, 1, 89, SP_F4_A4_B4, "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32") \
  X(16, 8, 64, e4m3, e5m2, f32, 1, 89, SP_F4_A4_B4, "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e5m2.f32") \
  X(16, 8, 64, e5m2, e4m3, f32, 1, 89, SP_F4_A4_B4, "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e5m2.e4m3.f32") \
  X(16, 8, 64, e5m2, e5m2, f32, 1, 89, SP_F4_A4_B4, "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e5m2.e5m2.f32")

// The operand signatures: c is the accumulator's registers (u32 "r", float "f" or double
// "d"), a and b the operands' (u32, or double for f64), e the sparse metadata register.
#define CROKTILE_MMA_SIG_R2_A4_B2(PTX)                                                     \
  asm volatile(PTX " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"                            \
               : "+r"(CR[0]), "+r"(CR[1])                                                  \
               : "r"(AR[0]), "r"(AR[1]), "r"(AR[2]), "r"(AR[3]), "r"(BR[0]), "r"(BR[1]));
#define CROKTILE_MMA_SIG_R2_A2_B1(PTX)                                                     \
  asm volatile(PTX " {%0,%1}, {%2,%3}, {%4}, {%0,%1};"                                     \
               : "+r"(CR[0]), "+r"(CR[1])                                                  \
               : "r"(AR[0]), "r"(AR[1]), "r"(BR[0]));
#define CROKTILE_MMA_SIG_F4_A4_B2(PTX)                                                     \
  asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                \
               : "+f"(CF[0]), "+f"(CF[1]), "+f"(CF[2]), "+f"(CF[3])                        \
               : "r"(AR[0]), "r"(AR[1]), "r"(AR[2]), "r"(AR[3]), "r"(BR[0]), "r"(BR[1]));
#define CROKTILE_MMA_SIG_F4_A2_B1(PTX)                                                     \
  asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"                         \
               : "+f"(CF[0]), "+f"(CF[1]), "+f"(CF[2]), "+f"(CF[3])                        \
               : "r"(AR[0]), "r"(AR[1]), "r"(BR[0]));
#define CROKTILE_MMA_SIG_R4_A2_B1(PTX)                                                     \
  asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"                         \
               : "+r"(CR[0]), "+r"(CR[1]), "+r"(CR[2]), "+r"(CR[3])                        \
               : "r"(AR[0]), "r"(AR[1]), "r"(BR[0]));
#define CROKTILE_MMA_SIG_R4_A4_B2(PTX)                                                     \
  asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                \
               : "+r"(CR[0]), "+r"(CR[1]), "+r"(CR[2]), "+r"(CR[3])                        \
               : "r"(AR[0]), "r"(AR[1]), "r"(AR[2]), "r"(AR[3]), "r"(BR[0]), "r"(BR[1]));
#define CROKTILE_MMA_SIG_R2_A1_B1(PTX)                                                     \
  asm volatile(PTX " {%0,%1}, {%2}, {%3}, {%0,%1};" : "+r"(CR[0]), "+r"(CR[1]) : "r"(AR[0]), "r"(BR[0]));
#define CROKTILE_MMA_SIG_D2_A1_B1(PTX)                                                     \
  asm volatile(PTX " {%0,%1}, {%2}, {%3}, {%0,%1};" : "+d"(CD[0]), "+d"(CD[1]) : "d"(AD[0]), "d"(BD[0]));
#define CROKTILE_MMA_SIG_D4_A2_B1(PTX)                                                     \
  asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"                         \
               : "+d"(CD[0]), "+d"(CD[1]), "+d"(CD[2]), "+d"(CD[3])                        \
               : "d"(AD[0]), "d"(AD[1]), "d"(BD[0]));
#define CROKTILE_MMA_SIG_D4_A4_B2(PTX)                                                     \
  asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                \
               : "+d"(CD[0]), "+d"(CD[1]), "+d"(CD[2]), "+d"(CD[3])                        \
               : "d"(AD[0]), "d"(AD[1]), "d"(AD[2]), "d"(AD[3]), "d"(BD[0]), "d"(BD[1]));
#define CROKTILE_MMA_SIG_D4_A8_B4(PTX)                                                     \
  asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};" \
               : "+d"(CD[0]), "+d"(CD[1]), "+d"(CD[2]), "+d"(CD[3])                        \
               : "d"(AD[0]), "d"(AD[1]), "d"(AD[2]), "d"(AD[3]), "d"(AD[4]), "d"(AD[5]),   \
                 "d"(AD[6]), "d"(AD[7]), "d"(BD[0]), "d"(BD[1]), "d"(BD[2]), "d"(BD[3]));
#define CROKTILE_MMA_SIG_SP_F4_A2_B2(PTX)                                                  \
  asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%0,%1,%2,%3}, %8, 0x0;"             \
               : "+f"(CF[0]), "+f"(CF[1]), "+f"(CF[2]), "+f"(CF[3])                        \
               : "r"(AR[0]), "r"(AR[1]), "r"(BR[0]), "r"(BR[1]), "r"(e));
#define CROKTILE_MMA_SIG_SP_F4_A4_B4(PTX)                                                  \
  asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0x0;" \
               : "+f"(CF[0]), "+f"(CF[1]), "+f"(CF[2]), "+f"(CF[3])                        \
               : "r"(AR[0]), "r"(AR[1]), "r"(AR[2]), "r"(AR[3]), "r"(BR[0]), "r"(BR[1]),   \
                 "r"(BR[2]), "r"(BR[3]), "r"(e));
// m8n8k4 through m16n8k8: rows 8..15 of A and k 4..7 (lanes 2, 3 of each quad) are zero.
#define CROKTILE_MMA_SIG_EMU_R2(PTX)                                                       \
  {                                                                                        \
    std::uint32_t c1 = 0;                                                                  \
    asm volatile(PTX " {%0,%1}, {%2,%3}, {%4}, {%0,%1};"                                   \
                 : "+r"(CR[0]), "+r"(c1) : "r"(AR[0]), "r"(0u), "r"(BR[0]));              \
  }
#define CROKTILE_MMA_SIG_EMU_F4(PTX)                                                       \
  {                                                                                        \
    float c2 = 0.f, c3 = 0.f;                                                              \
    asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"                       \
                 : "+f"(CF[0]), "+f"(CF[1]), "+f"(c2), "+f"(c3) : "r"(AR[0]), "r"(0u), "r"(BR[0])); \
  }
// m8n8k16 through m16n8k16: the A registers of rows 8..15 are zero.
#define CROKTILE_MMA_SIG_EMU16_R2(PTX)                                                     \
  {                                                                                        \
    std::uint32_t c1 = 0;                                                                  \
    asm volatile(PTX " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"                          \
                 : "+r"(CR[0]), "+r"(c1)                                                   \
                 : "r"(AR[0]), "r"(0u), "r"(AR[1]), "r"(0u), "r"(BR[0]), "r"(BR[1]));     \
  }
#define CROKTILE_MMA_SIG_EMU16_F4(PTX)                                                     \
  {                                                                                        \
    float c2 = 0.f, c3 = 0.f;                                                              \
    asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"              \
                 : "+f"(CF[0]), "+f"(CF[1]), "+f"(c2), "+f"(c3)                            \
                 : "r"(AR[0]), "r"(0u), "r"(AR[1]), "r"(0u), "r"(BR[0]), "r"(BR[1]));     \
  }

// form<...>::exists says whether the instruction exists (min_sm: the first arch with it);
// on CUDA, run(c, a, b, e) issues it on the registers at c, a, b (one instruction's worth).
template <int IM, int IN, int IK, class TA, class TB, class TC, bool SPARSE>
struct form {
  static constexpr bool exists = false;
  static constexpr int min_sm = 0;
};

#if defined(__CUDACC__)
// The operands' registers, as the signatures name them.
#define CR static_cast<std::uint32_t*>(c)
#define CF static_cast<float*>(c)
#define CD static_cast<double*>(c)
#define AR static_cast<const std::uint32_t*>(a)
#define BR static_cast<const std::uint32_t*>(b)
#define AD static_cast<const double*>(a)
#define BD static_cast<const double*>(b)
#define CROKTILE_MMA_FORM_RUN(SIG, PTX)                                                                  \
  __device__ __forceinline__ static void run(void* c, const void* a, const void* b, std::uint32_t e) { \
    (void)e;                                                                                             \
    CROKTILE_MMA_SIG_##SIG(PTX)                                                                          \
  }
#else
#define CROKTILE_MMA_FORM_RUN(SIG, PTX)
#endif

#define CROKTILE_MMA_DEFINE_FORM(IM, IN, IK, TA, TB, TC, SP, SM, SIG, PTX) \
  template <>                                                              \
  struct form<IM, IN, IK, ptx::TA, ptx::TB, ptx::TC, SP> {                 \
    static constexpr bool exists = true;                                   \
    static constexpr int min_sm = SM;                                      \
    CROKTILE_MMA_FORM_RUN(SIG, PTX)                                        \
  };
CROKTILE_MMA_FORMS(CROKTILE_MMA_DEFINE_FORM)
#undef CROKTILE_MMA_DEFINE_FORM
#undef CROKTILE_MMA_FORM_RUN
#undef CR
#undef CF
#undef CD
#undef AR
#undef BR
#undef AD
#undef BD

}  // namespace mma
}  // namespace croktile
