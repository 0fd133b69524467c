// Events between the levels of a block, and an instance's own events: the launch's level
// fills a row and triggers what its inner instances wait for, each instance orders its
// own steps with a local event and triggers what the launch's level waits for after the
// level ends. The instances that wait on the launch's event run concurrently on every
// target (a work-item each on opencl). Expected values by hand: out[p][q] = 2 * a[p][q] + q.

__co__ s32 [2, 4] levels(s32 [2, 4] a) {
  s32 [2, 4] out;
  parallel p by 2 : block {
    shared event ready[4], done[4];
    shared s32 [1, 4] row;
    foreach i in [4]
      row.at(0, i) = a.at(p, i) * 2;
    trigger ready;
    parallel q by 4 : thread {
      local event mine;
      wait ready[q];
      trigger mine;
      wait mine;
      out.at(p, q) = row.at(0, q) + q;
      trigger done[q];
    }
    wait done;
  }
  return out;
}

int main() {
  auto a = choreo::make_spandata<choreo::s32>(2, 4);
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 4; ++q) a[p][q] = p * 10 + q;
  auto out = levels(a.view());
  std::cout << "levels";
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 4; ++q) std::cout << " " << out[p][q];
  std::cout << "\n";
  // expect-output: levels 0 3 6 9 20 23 26 29
}
