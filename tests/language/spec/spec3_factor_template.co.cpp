// Spec 3, "Factor Target Specific Details": the same device function as a template,
// instantiated by `call bar<3>()` (the `-kt` variant). Verbatim.
__cok__ {
template <int v> void bar() {};

// compiler generate a explicit function template specialization:
// template<> void bar<3>() {};
}

__co__ void foo() {
  parallel p by 1 { call bar<3>(); }
}
