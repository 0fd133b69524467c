// Tokens that are no C++ integer constant at all, and constants where the grammar needs a
// number (a rank): errors of the lexer and parser, which stop the check of the function
// (err_int_literals.co.cpp has the constants that parse).
__co__ void suffix() {
  int n = 12abc;                       // expect-error: invalid suffix 'abc' on integer constant
}

__co__ void hex_suffix() {
  int o = 0x1fz;                       // expect-error: invalid suffix 'z' on integer constant
}

__co__ void binary_digit() {
  int p = 0b102;                       // expect-error: invalid suffix '2' on integer constant
}

__co__ void octal_digit() {
  int q = 09;                          // expect-error: invalid digit '9' in octal constant
}

__co__ void rank() {
  mdspan<4294967296> s : [1];          // expect-error: integer constant is too large for type 'int'
}
