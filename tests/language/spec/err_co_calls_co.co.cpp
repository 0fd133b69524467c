// Rule (spec 2): "Croktile functions are not allowed to call another Croktile function",
// neither with `call` nor as a plain call.
__co__ void other() {}

__co__ int value() { return 3; }

__co__ void caller() {
  other();                     // expect-error: a __co__ function cannot call another __co__ function ('other')
  parallel p by 2 {
    call other();              // expect-error: cannot call another __co__ function ('other')
    other();                   // expect-error: cannot call another __co__ function ('other')
  }
  int v = value();             // expect-error: cannot call another __co__ function ('value')
  call value();                // expect-error: cannot call another __co__ function ('value')
}
