// Events (events.md) split a block into a producer that loads rows into a two-stage
// shared buffer and consumers that use them: `full[s][c]` says stage s holds a row for
// consumer c, `empty[s][c]` that consumer c is done with it (a wait consumes the event,
// so each consumer waits on an element of its own). The instances of the level that
// waits run concurrently on every target. Expected values: Python (see main).

// out[b * 2 + c][w] = sum over k < 6 of a[b * 6 + k][c * 8 + w] * (k + 1)
__co__ s32 [4, 8] pipeline(s32 [12, 16] a) {
  s32 [4, 8] out;
  parallel b by 2 {
    shared s32 [2, 16] stage;
    shared event full[2][2], empty[2][2];
    parallel t by 3 {
      inthreads (t == 0) {                        // the producer
        foreach k in [6] {
          wait empty[k % 2];                      // both consumers are done with the stage
          dma.copy a.subspan(1, 16).at(b * 6 + k, 0) => stage.subspan(1, 16).at(k % 2, 0);
          trigger full[k % 2];
        }
      }
      inthreads (t > 0) {                         // consumer t - 1: columns (t - 1) * 8 ...
        local s32 [1, 8] acc;
        foreach w in [8]
          acc.at(0, w) = 0;
        trigger empty[0][t - 1], empty[1][t - 1]; // both stages start free
        foreach k in [6] {
          wait full[k % 2][t - 1];
          foreach w in [8]
            acc.at(0, w) += stage.at(k % 2, (t - 1) * 8 + w) * (k + 1);
          trigger empty[k % 2][t - 1];
        }
        dma.copy acc => out.subspan(1, 8).at(b * 2 + t - 1, 0);
      }
    }
  }
  return out;
}

// a global event orders two instances of the outermost level: instance 1 waits for
// instance 0's row; the doc's event array, one element per waiting instance
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
  auto a = choreo::make_spandata<choreo::s32>(12, 16);
  for (int r = 0; r < 12; ++r)
    for (int j = 0; j < 16; ++j) a[r][j] = (r * 16 + j) % 23 - 11;
  long total = 0;
  auto out = pipeline(a.view());
  for (int i = 0; i < 4; ++i)
    for (int w = 0; w < 8; ++w) total += out[i][w];
  std::cout << "pipeline " << out[0][0] << " " << out[3][7] << " " << total << "\n";
  // expect-output: pipeline -8 23 -82
  auto h = choreo::make_spandata<choreo::s32>(1, 4);
  for (int i = 0; i < 4; ++i) h[0][i] = i;
  auto o = handoff(h.view());
  std::cout << "handoff";
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < 4; ++i) std::cout << " " << o[r][i];
  std::cout << "\n";
  // expect-output: handoff 1 4 7 10 2 8 14 20
}
