// Lexical errors in tileflow code: each is reported at its character and the rest of the
// function is still parsed (the character is dropped, as gcc does with stray characters).
__co__ void lexical() {
  int a = 09;                  // expect-error: invalid digit '9' in octal constant
  int b = 0x1F + 017 + 0b101;  // fine: hex, octal, binary
  int c = 3 ` 4;               // expect-error: stray '`' in tileflow code
  int d = 1                    // expect-error: expected ';' before 'int'
  int e = a \ b;               // expect-error: stray '\' in tileflow code
}
