// A 'tma.copy' is one bulk tensor copy: on the cuda target its box must fit the copy
// engine's limits (at most 256 elements per dimension, an innermost dimension of whole
// 16 bytes, global rows of whole 16 bytes); each copy that breaks one is reported.
// compile-flags: -t cuda --profile cuda-sm90a

__co__ void wide(f16 [64, 512] a) {
  parallel p by 1 : block {
    s = tma.copy a => shared; // expect-error: dimension 1 of this 'tma.copy' box is 512 elements; the copy engine moves at most 256 per dimension (split the copy)
  }
}

__co__ void narrow(f16 [64, 24] a) {
  parallel p by 8 : block {
    s = tma.copy a.chunkat(_, p) => shared; // expect-error: the innermost dimension of this 'tma.copy' box is 6 bytes; the copy engine moves whole multiples of 16 bytes
  }
}

__co__ void rows(f16 [64, 12] a) {
  parallel p by 3 : block {
    s = tma.copy a.chunkat(_, p) => shared; // expect-error: the innermost dimension of this 'tma.copy' box is 8 bytes; the copy engine moves whole multiples of 16 bytes
  }
}

__co__ void pitch(f16 [64, 12] a) {
  parallel p by 1 : block {
    s = tma.copy a.subspan(64, 8).at(0, 0) => shared; // expect-error: rows of 'a' are 24 bytes; a 'tma.copy' needs global rows of whole multiples of 16 bytes
  }
}
