// Wrong uses of the row operations (frontend/sema/mma/rows.py; the kinds of fragments:
// operands.py), each reported at its statement.

__co__ void wrong(f16 [16, 16] a, f16 [16, 8] b, f16 [32, 16] a2, f32 [16, 8] out, f32 [32, 8] out2) {
  parallel p by 1 : block {
    c = mma.fill.f32 0.0f;
    c2 = mma.fill.f32 0.0f;
    parallel g by 1 : group {
      ma = mma.load a;
      mb = mma.load b;
      ma2 = mma.load a2;
      mma.row.col c, ma, mb;
      mma.row.col c2, ma2, mb;
      m = mma.row.max c;
      mma.row.max ma, c; // expect-error: 'ma' is an A operand; 'mma.row.max' sets a row vector (make one with 'm = mma.row.max s;' or 'mma.row.fill')
      mma.row.sum c, m; // expect-error: 'c' is an accumulator; 'mma.row.sum' sets a row vector (make one with 'm = mma.row.max s;' or 'mma.row.fill')
      mma.row.scale c, ma; // expect-error: 'ma' is an A operand; a per-row operand is a row vector (made by 'mma.row.max', '.sum' or '.fill') or a value
      mma.row.max m, ma; // expect-error: 'ma' is an A operand; a row vector is reduced from an accumulator
      mma.exp c, m; // expect-error: 'mma.exp' takes 3 operands: 'mma.exp x, m, scale'
      mma.row.mean m, c; // expect-error: unknown row operation 'mma.row.mean'; expected 'mma.row.fill', 'mma.row.max', 'mma.row.sum', 'mma.row.scale', 'mma.row.div', 'mma.exp', 'mma.mask.causal', 'mma.mask.cols', 'mma.cvt'
      mma.mask.causal c, 1.5f, 0; // expect-error: the offsets of 'mma.mask.causal' are integers (the tile's first row and column), not float
      mma.mask.causal c, 0; // expect-error: 'mma.mask.causal' takes 3 or 4 operands: 'mma.mask.causal s, row0, col0[, period]'
      mma.mask.causal c, 0, 0, 0.5f; // expect-error: the offsets of 'mma.mask.causal' are integers (the rows' period), not float
      mma.mask.cols c, 1, 2; // expect-error: 'mma.mask.cols' takes 2 operands: 'mma.mask.cols s, n'
      mma.mask.cols c, 0.5f; // expect-error: the offsets of 'mma.mask.cols' are integers (the count of columns kept), not float
      mma.mask.diag c, 0, 0; // expect-error: unknown row operation 'mma.mask.diag'; expected 'mma.row.fill', 'mma.row.max', 'mma.row.sum', 'mma.row.scale', 'mma.row.div', 'mma.exp', 'mma.mask.causal', 'mma.mask.cols', 'mma.cvt'
      x = mma.cvt.f32 c; // expect-error: 'mma.cvt' names the operand type: 'mma.cvt.f16' or 'mma.cvt.bf16'
      y = mma.row.fill.f16 0.0f; // expect-error: unknown 'mma.row.fill' modifier '.f16'; a row vector holds f32 ('mma.row.fill.f32')
      mma.row.scale c2, m; // expect-error: 'm' holds the rows of a 16-row accumulator; 'c2' those of a 32-row accumulator
      z = mma.row.fill.f32 1.0f; // expect-error: row vector 'z' never meets an accumulator, so its rows are unknown
      w = mma.cvt.f16 m; // expect-error: 'm' is a row vector; 'mma.cvt' works on an accumulator
    }
    mma.store c, out;
    mma.store c2, out2;
  }
}
