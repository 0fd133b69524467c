// A global event orders the instances of the outermost level (instance 1 waits for
// instance 0's row), and an event array gives each waiting inner instance an element of
// its own (events.md, "DeadLocks"); the levels that wait run concurrently.
// targets: cpu
// (cuda and opencl refuse global events: their blocks and work-groups are not promised
// to run at once (err_targets.co.cpp, err_opencl.co.cpp); factor too, for now.)
__co__ s32 [2, 4] handoff(s32 [1, 4] a) {
  s32 [2, 4] out;
  global event done;
  parallel p by 2 {
    shared event go[2];
    inthreads (p == 0) {
      local s32 [1, 4] row;
      foreach i in [4]
        row.at(0, i) = a.at(0, i) * 3 + 1;
      dma.copy row => out.subspan(1, 4).at(0, 0);
      trigger done;
    }
    inthreads (p == 1) {
      wait done;
      trigger go;
    }
    parallel q by 2 {
      inthreads (p == 1) {
        wait go[q];
        foreach i in [2]
          out.at(1, q * 2 + i) = out.at(0, q * 2 + i) * 2;
      }
    }
  }
  return out;
}

int main() {
  auto h = choreo::make_spandata<choreo::s32>(1, 4);
  for (int i = 0; i < 4; ++i) h[0][i] = i;
  auto o = handoff(h.view());
  std::cout << "handoff";
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < 4; ++i) std::cout << " " << o[r][i];
  std::cout << "\n";
  // expect-output: handoff 1 4 7 10 2 8 14 20
}
