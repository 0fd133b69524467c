// A declaration as the unbraced body of 'parallel', 'foreach', 'with' and 'inthreads' (a
// block of its own, as in C++): one name or several (found by the tensor-core fuzzer, #36:
// a declaration of several names made the parser fail internally).
__co__ void bodies(f32 [8] a) {
  parallel p by 2 : block
    int x = 1, y = 2;
  foreach i in [2]
    int z = 3;
  with j in [2]
    mdspan s : [4];
  parallel q by 2 {
    inthreads (q == 0)
      local f32 [4] t, u;
    foreach k in [2]
      local f32 [2] v;
  }
}
