// Spec 3, "Factor Target Specific Details": a C-linkage device function in `__cok__`
// called with a constant. Verbatim.
__cok__ {
extern "C" void bar(int v) {};  // v is a compile-time constant
}

__co__ void foo() {
  parallel p by 1 { call bar(3); }
}
