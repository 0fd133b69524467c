// Events (events.md) split a block into a producer that loads rows into a two-stage
// shared buffer and consumers that use them: `full[s][c]` says stage s holds a row for
// consumer c, `empty[s][c]` that consumer c is done with it (a wait consumes the event,
// so each consumer waits on an element of its own). The instances of the level that
// waits run concurrently on every target (opencl: resumable instances, a work-item each).
// Expected values: Python (see main).

// out[b * 2 + c][w] = sum over k < 6 of a[b * 6 + k][c * 8 + w] * (k + 1)
__co__ s32 [4, 8] pipeline(s32 [12, 16] a) {
  s32 [4, 8] out;
  parallel b by 2 {
    shared s32 [2, 16] stage;
    shared event full[2][2], empty[2][2];
    parallel t by 3 {
      inthreads.async (t == 0) {                  // the producer
        foreach k in [6] {
          wait empty[k % 2];                      // both consumers are done with the stage
          dma.copy a.subspan(1, 16).at(b * 6 + k, 0) => stage.subspan(1, 16).at(k % 2, 0);
          trigger full[k % 2];
        }
      }
      inthreads.async (t > 0) {                   // consumer t - 1: columns (t - 1) * 8 ...
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
}
