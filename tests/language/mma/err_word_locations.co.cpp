// Errors about a word of an 'mma.' form are reported at that word.

__co__ void unknown_op(f16 [16, 16] a) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mma.xyz a; // expect-error: unknown tensor-core operation 'mma.xyz'
    }
  }
}

__co__ void bad_load_swizzle(f16 [16, 16] a) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      ma = mma.load.swiz<16> a; // expect-error: the swizzle of 'mma.load.swiz<N>' is 32, 64 or 128 bytes, not 16
    }
  }
}

__co__ void fill_modifier(f16 [16, 16] a) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32.x 0.0f; // expect-error: unknown 'mma.fill' modifier '.x'
    }
  }
}
