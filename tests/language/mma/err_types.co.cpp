// The element types of a multiply are an instruction's (ir/mma_forms.py, the table of
// docs/language/tensor-cores.md), checked by the language on every target: the portable
// targets compute what the instructions compute, so a mix that no instruction takes is an
// error at the multiply, the same with -t cpu, factor, opencl and cuda
// (test_mma_targets.py), never a build that fails in the runtime's templates (issue #36).

__co__ void f16_by_bf16(f16 [16, 16] lhs, bf16 [16, 8] rhs, f32 [16, 8] out) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      ma = mma.load lhs;
      mb = mma.load rhs;
      mma.row.col mc, ma, mb; // expect-error: no tensor-core instruction multiplies a 16 x 8 x 16 tile of f16 x bf16 -> f32: an A operand of f16 multiplies a B operand of f16
      mma.store mc, out;
    }
  }
}

__co__ void s8_by_e5m2(s8 [16, 32] lhs, f8_e5m2 [32, 8] rhs, s32 [16, 8] out) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill 0;
      ma = mma.load lhs;
      mb = mma.load rhs;
      mma.row.col mc, ma, mb; // expect-error: tile of s8 x f8_e5m2 -> s32: an A operand of s8 multiplies a B operand of s8 or u8
      mma.store mc, out;
    }
  }
}

__co__ void bf16_into_f16(bf16 [16, 16] lhs, bf16 [16, 8] rhs, f16 [16, 8] out) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f16 0.0f;
      ma = mma.load lhs;
      mb = mma.load rhs;
      mma.row.col mc, ma, mb; // expect-error: tile of bf16 x bf16 -> f16: bf16 x bf16 accumulates in f32
      mma.store mc, out;
    }
  }
}

// the neighbours: tf32 and fp8 into an integer, integers into a float, operands no
// instruction takes, a sparse A, an operand
// converted by mma.cvt
__co__ void more(f32 [16, 8] a32, f32 [8, 8] b32, f8_e4m3 [16, 32] a8, f8_e5m2 [32, 8] b8, u8 [16, 32] au,
                 s8 [32, 8] bs, s32 [16, 16] ai, s32 [16, 8] bi, f64 [8, 4] a64, f32 [4, 8] b64,
                 f16 [16, 8] sa, u32 [16, 1] meta, f16 [8, 16] sb, f16 [16, 16] a16, f16 [16, 8] b16,
                 f16 [8, 8] b88, f32 [16, 8] out) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      c1 = mma.fill.f16 0.0f;
      ma1 = mma.load a32;
      mb1 = mma.load b32;
      mma.row.col c1, ma1, mb1; // expect-error: tile of f32 x f32 -> f16: f32 x f32 accumulates in f32
      c2 = mma.fill.s32 0;
      ma2 = mma.load a8;
      mb2 = mma.load b8;
      mma.row.col c2, ma2, mb2; // expect-error: tile of f8_e4m3 x f8_e5m2 -> s32: f8_e4m3 x f8_e5m2 accumulates in f16 or f32
      c3 = mma.fill.f32 0.0f;
      ma3 = mma.load au;
      mb3 = mma.load bs;
      mma.row.col c3, ma3, mb3; // expect-error: tile of u8 x s8 -> f32: u8 x s8 accumulates in s32
      c4 = mma.fill 0;
      ma4 = mma.load ai;
      mb4 = mma.load bi;
      mma.row.col c4, ma4, mb4; // expect-error: tile of s32 x s32 -> s32: no instruction takes s32 operands
      c5 = mma.fill.f64 0.0;
      ma5 = mma.load a64;
      mb5 = mma.load b64;
      mma.row.col c5, ma5, mb5; // expect-error: tile of f64 x f32 -> f64: an A operand of f64 multiplies a B operand of f64
      c6 = mma.fill.f16 0.0f;
      ma6 = mma.load sa;
      me6 = mma.load meta;
      mb6 = mma.load sb;
      mma.row.row.sp c6, ma6, mb6, me6; // expect-error: 16 x 8 x 16 tile of f16 x f16 -> f16 (sparse): f16 x f16 accumulates in f32
      c7 = mma.fill.f32 0.0f;
      ma7 = mma.load a16;
      mb7 = mma.load b16;
      mma.row.col c7, ma7, mb7;
      pa = mma.cvt.bf16 c7;
      c8 = mma.fill.f32 0.0f;
      mb8 = mma.load b88;
      mma.row.col c8, pa, mb8; // expect-error: 16 x 8 x 8 tile of bf16 x f16 -> f32: an A operand of bf16 multiplies a B operand of bf16
      mma.store c7, out;
    }
  }
}

// a warp group's instructions take one operand type too
__co__ void warp_group(f16 [64, 64] lhs, bf16 [64, 64] rhs, f32 [64, 64] out) {
  parallel p by 1 : block {
    shared f16 [64, 64] ls;
    shared bf16 [64, 64] rs;
    tma.copy.swiz<128> lhs => ls;
    tma.copy.swiz<128> rhs => rs;
    mc = mma.fill.f32 0.0f;
    foreach w in 4 {
      parallel g by 1 : group-4 {
        ma = mma.load.swiz<128> ls.chunkat(_, w);
        mb = mma.load.swiz<128> rs.chunkat(_, w);
        mma.row.row mc, ma, mb; // expect-error: no warp-group (wgmma) instruction computes a 64 x 64 x 16 tile of f16 x bf16 -> f32
      }
    }
    mma.store mc, out;
  }
}

// 8-bit integers have no warp-group instruction here (the runtime has none)
__co__ void warp_group_s8(s8 [64, 128] lhs, s8 [64, 128] rhs, s32 [64, 64] out) {
  parallel p by 1 : block {
    shared s8 [64, 128] ls;
    shared s8 [64, 128] rs;
    tma.copy.swiz<128> lhs => ls;
    tma.copy.swiz<128> rhs => rs;
    mc = mma.fill.s32 0;
    foreach w in 4 {
      parallel g by 1 : group-4 {
        ma = mma.load.swiz<128> ls.chunkat(_, w);
        mb = mma.load.swiz<128> rs.chunkat(_, w);
        mma.row.row mc, ma, mb; // expect-error: no warp-group (wgmma) instruction computes a 64 x 64 x 32 tile of s8 x s8 -> s32: a warp group multiplies f16 x f16 -> f16 or f32, bf16 x bf16 -> f32
      }
    }
    mma.store mc, out;
  }
}

// a sparse A is a warp's (mma.sp): a warp group has no sparse multiply
__co__ void warp_group_sparse(f16 [64, 32] lhs, u32 [64, 4] meta, f16 [64, 64] rhs, f32 [64, 64] out) {
  parallel p by 1 : block {
    shared f16 [64, 32] ls;
    shared f16 [64, 64] rs;
    tma.copy.swiz<64> lhs => ls;
    tma.copy.swiz<128> rhs => rs;
    mc = mma.fill.f32 0.0f;
    parallel g by 1 : group-4 {
      ma = mma.load.swiz<64> ls;
      me = mma.load meta;
      mb = mma.load.swiz<128> rs;
      mma.row.row.sp mc, ma, mb, me; // expect-error: 'mma.row.row.sp' is a warp's sparse multiply (mma.sp); a warp group (wgmma, a 'group-4' level) has no sparse form here
    }
    mma.store mc, out;
  }
}
