// Events (events.md) are checked: storage levels, constant positive array dimensions,
// indices inside them, 'trigger'/'wait'/'while' on events only. Programs that use them:
// tests/language/events.
__co__ void events(int n) {
  global event g[2];
  shared event s0;                                  // expect-error: 'shared' events can only be declared inside a 'parallel' block
  parallel p by 2 {
    shared event e[3], e1;
    local event l[2][2];
    event d[n];                                     // expect-error: an event array's dimensions must be integer constants
    event z[0];                                     // expect-error: an event array's dimensions must be positive, not 0
    global event g2;                                // expect-error: 'global' events must be declared outside 'parallel'
    trigger e, e1, l[1], l[0][1], g[p];
    trigger e[3];                                   // expect-error: index 3 is out of bounds of dimension 0 of event array 'e' (valid range [0, 3))
    wait e[-1];                                     // expect-error: index -1 is out of bounds of dimension 0 of event array 'e' (valid range [0, 3))
    wait l[1][1][0];                                // expect-error: event array 'l' has 2 dimensions, but 3 indices are used
    trigger n;                                      // expect-error: 'trigger' takes events, but 'n' is int
    wait e, l[1];
    while (e1 && l[0][0]);
    while (n > 0);                                  // expect-error: 'while' needs an event condition, not bool
  }
}
