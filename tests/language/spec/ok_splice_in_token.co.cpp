// Review R1 of issue #11: a line splice (backslash-newline) inside a name or a number
// joins its parts as in C++ (phase 2), whether or not the file has directives (pcpp
// joins them when it runs); the lines after it keep their numbers (the error below).
__device__ void kernel(int *x, int n) {}

__co__ void spliced(s32 [8] a) {
  int to\
tal = 12\
34 + 0x1\
F;
  paral\
lel p by 2 {
    local s32 [8] buf;
    call kernel(buf, total);
  }
  int after = missing;    // expect-error: 'missing' was not declared in this scope
}

int main() { return 0; }
