// Scalars and control flow of the reference's language, run on every target: several
// declarators in one statement, `{}` initialisers, hex literals, `mutable` scalars with
// compound assignments, nested `if`/`else` (with and without braces), `break` and
// `continue` in `foreach` (host level and inside `parallel`), `?:`, `cdiv`, `println` (host
// level and inside `parallel`) and `assert`. Expected values worked out by hand (see the comments).
__cok__ { extern "C" void put(int* out, int v) { out[0] = v; } }

__co__ s32 [8] scalars(s32 [8] a) {
  s32 [a.span] out;
  int WARP_M = 64, WARP_N = 0x10, K{3};
  parallel p by 1 {
    println("in parallel: K=", K, " p=", p, " 100%");   // one instance: printed once
    with i in [8] {
      foreach i {
        mutable int v = i * 10;
        if (i == 1) v += 5;                 // 15
        else if (i == 2) { v += 7; }        // 27
        else {
          if (i > 5) v *= 2;                // 120, 140
          else v /= 2;                      // 0, 15, 20, 25
        }
        v %= 1000;
        v -= K - 3;
        v += (i < 4) ? WARP_N : cdiv(WARP_M, 12);   // +16 for i < 4, else +6
        mutable int c = 0;
        with j in [8] {
          foreach j {
            if (j == 5) break;
            if (j == 1) continue;
            c += j;                         // 0 + 2 + 3 + 4 = 9
          }
        }
        v += c * 1000;
        local s32 [1] t;
        call put(t, v);
        dma.copy t => out.chunkat(i);
      }
    }
  }
  return out;
}

__co__ int sums(int n) {
  mutable int acc = 0;
  mutable bool seen = false;
  with k in [10] {
    foreach k {
      if (k == n) break;
      if (k % 2 == 1) continue;
      acc += k;                             // n = 7: 0 + 2 + 4 + 6 = 12
      seen = true;
    }
  }
  println("acc=", acc, " seen=", seen, " cdiv=", cdiv(n, 3));
  assert(acc >= 0, "acc is never negative");
  int snap = acc;                           // a snapshot: it keeps the value acc has here
  acc += 100;
  println("snap=", snap, " acc=", acc);
  return acc * 2 + (seen ? 1 : 0);
}

int main() {
  int a[8] = {0};
  auto r = scalars(choreo::make_spanview<1>(a, {8}));
  for (int i = 0; i < 8; ++i) std::cout << r[i] << (i < 7 ? " " : "\n");
  int s7 = sums(7);
  int s0 = sums(0);
  std::cout << s7 << " " << s0 << std::endl;
}
// expect-output: in parallel: K=3 p=0 100%
// expect-output: 9016 9031 9043 9031 9026 9031 9126 9146
// expect-output: acc=12 seen=true cdiv=3
// expect-output: snap=12 acc=112
// expect-output: acc=0 seen=false cdiv=0
// expect-output: snap=0 acc=100
// expect-output: 225 200
