// Review R1 of issue #11: a closer that nothing open needs, in the middle of a line whose
// own brackets are all closed, is one too many: "extraneous ')'" at it (as clang says),
// not "expected '}'" with a note at a block opened lines above. A wrong closer while a
// bracket of the line is open stays a typo for that bracket's closer.
__device__ void kernel(int *x, int n) {}

__co__ void extra_paren_in_mask(s32 [4, 8] a) {
  parallel p by 4 {
    with q in [2] {
      foreach q if (p == 0)) {         // expect-error: extraneous ')'
        call kernel(a, 1);
      }
    }
  }
}

__co__ void extra_bracket_in_decl(s32 [4, 8] a) {
  parallel p by 4 {
    local s32 [4, 8]] buf;             // expect-error: extraneous ']'
  }
}

__co__ void typo_stays_a_typo(s32 [4, 8] a) {
  parallel p by 4 {
    local s32 [4, 8) buf;              // expect-error: expected ']' before ')'
  }
}

__co__ void checked_after(s32 [8] a) {
  int z = w;                           // expect-error: 'w' was not declared in this scope
}

int main() { return 0; }
