// Review R1 of issue #11 (mismatched brackets, later functions still checked): a __co__
// function missing its closing braces ends where the next __co__ function starts (they
// cannot nest), with the error there and a note at the opening brace; the functions after
// it are still checked instead of one "unterminated '__co__' function" for the file.
__device__ void kernel(int *x, int n) {}

__co__ void not_closed(s32 [8] a) {
  parallel p by 2 {
    call kernel(a, 1);

__co__ void checked_next(s32 [8] a) {   // expect-error: expected '}' before '__co__'
  int z = w;                            // expect-error: 'w' was not declared in this scope
}

__co__ void also_not_closed(s32 [8] a) {
  int y = 1;
__co__ void checked_last(s32 [8] a) {   // expect-error: expected '}' before '__co__'
  int v = u;                            // expect-error: 'u' was not declared in this scope
}

int main() { return 0; }
