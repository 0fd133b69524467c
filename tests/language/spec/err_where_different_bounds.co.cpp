// Spec 4 where-binding: `n_p <-> n` requires the two bounds to be equal; literal bounds
// that differ are an error (symbolic ones become a runtime check).
__co__ void where_bounds(int M, int K) {
  with {m, n} in [M, 8], {n_p, k} in [16, K]
  where n_p <-> n {            // expect-error: 'n_p <-> n' binds variables of different bounds (16 and 8)
  }
  with {a, b} in [4, 4]
  where a <-> c {              // expect-error: 'c' in 'where' must be a bounded variable of this 'with'
  }
}
