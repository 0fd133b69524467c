// Scalars are 'int', 'bool', the sized integers 's8' to 's32', 'u8', 'u16' and the
// floating-point types (README "Scalars, declarations and control flow"); integers stay
// 32-bit, so 'u32', 's64', 'u64' are no scalar types, nor are the sub-byte integers.
__co__ void elem_scalar(u32 n, int m) { // expect-error: 'u32' is not a scalar type: integers in tileflow code are 32-bit
  s64 x;                       // expect-error: 's64' is not a scalar type
  s4 h = 3;                    // expect-error: 's4' is not a scalar type (not supported yet)
  s32 ok = m;
  u8 small = ok;
}

__co__ void narrow_param(s16 w) { // expect-error: 's16' parameters are not supported yet
}
