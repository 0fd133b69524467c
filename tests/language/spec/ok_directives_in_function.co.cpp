// Review R1 of issue #11: preprocessor directives inside a __co__ function body. The
// preprocessor applies '#define' / '#undef' (and keeps them, and '#pragma', for the target
// compiler); the tileflow lexer skips those lines instead of reading 'define' as code. A
// '#' that starts a line and is not a directive is still the '#' operator.
__device__ void kernel(int *x, int n) {}

__co__ void directives(s32 [8] a) {
#define TILE 4
  int t = TILE;
#undef TILE
  #  pragma unroll
  parallel p by 2 {
    local s32 [8] buf;
    call kernel(buf,
#p);
#define LONG_MACRO(x) \
    ((x) + 1)
    call kernel(buf, LONG_MACRO(t));
  }
#
}

int main() { return 0; }
