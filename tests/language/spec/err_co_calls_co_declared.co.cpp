// Rule (spec 2): no __co__ function calls another one, also when the callee is only
// declared (a prototype) or defined further down in the file.
__co__ void later(int n);

__co__ void caller(int n) {
  parallel p by 2 {
    call later(n);             // expect-error: a __co__ function cannot call another __co__ function ('later')
    call defined_below();      // expect-error: a __co__ function cannot call another __co__ function ('defined_below')
  }
}

__co__ void defined_below() {}
__co__ void later(int n) {}
