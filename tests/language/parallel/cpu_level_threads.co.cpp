// Annotated levels whose thread counts suit no cuda block (a `group` of 8 threads, a
// `group-4` beside a `group` of another width, as in the reference's norm/pb_norm_*.co):
// the cuda target rejects them (err_cuda_levels.co.cpp); on the other targets the
// levels are loops, so they run. Each instance writes its indices into its own element.
// targets: cpu factor opencl
__cok__ {
extern "C" void put(int* c, int v) { c[0] = v; }
}

// r by 6 : group, s by 8 threads in each: out[r][s] = r * 10 + s
__co__ s32 [6, 8] narrow_groups(s32 [6, 8] shape) {
  s32 [shape.span] out;
  parallel r by 6 : group parallel s by 8 : thread {
    local s32 [1, 1] t;
    call put(t, r * 10 + s);
    dma.copy t => out.chunkat(r, s);
  }
  return out;
}

// a block of 3 with a group-4 of one warp group and two groups of 3 threads beside it
__co__ s32 [3, 7] mixed(s32 [3, 7] shape) {
  s32 [shape.span] out;
  parallel p by 3 : block {
    parallel q by 1 : group-4 {
      local s32 [1, 1] t;
      call put(t, p * 100 + 99);
      dma.copy t => out.subspan(1, 1).at(p, q);
    }
    parallel r by 2 : group {
      parallel s by 3 : thread {
        local s32 [1, 1] t;
        call put(t, p * 100 + r * 10 + s);
        dma.copy t => out.subspan(1, 1).at(p, 1 + r * 3 + s);
      }
    }
  }
  return out;
}

// a group inside a group-4 (norm/pb_norm_g4_*.co): out[g][w][t] = g * 100 + w * 10 + t
__co__ s32 [2, 2, 4] nested(s32 [2, 2, 4] shape) {
  s32 [shape.span] out;
  parallel g by 2 : group-4 {
    parallel w by 2 : group {
      parallel t by 4 : thread {
        local s32 [1, 1, 1] v;
        call put(v, g * 100 + w * 10 + t);
        dma.copy v => out.chunkat(g, w, t);
      }
    }
  }
  return out;
}

int main() {
  int buf[6 * 8] = {0};
  auto g = narrow_groups(choreo::make_spanview<2>(buf, {6, 8}));
  long sum = 0;
  for (int r = 0; r < 6; ++r) for (int s = 0; s < 8; ++s) sum += g[r][s];
  std::cout << g[0][7] << " " << g[5][0] << " " << g[3][4] << " " << sum << "\n";
  int buf2[3 * 7] = {0};
  auto m = mixed(choreo::make_spanview<2>(buf2, {3, 7}));
  for (int p = 0; p < 3; ++p) {
    for (int c = 0; c < 7; ++c) std::cout << (c ? " " : "") << m[p][c];
    std::cout << "\n";
  }
  int buf3[16] = {0};
  auto n = nested(choreo::make_spanview<3>(buf3, {2, 2, 4}));
  for (int i = 0; i < 16; ++i) std::cout << (i ? " " : "") << n[i / 8][i / 4 % 2][i % 4];
  std::cout << "\n";
}
// narrow_groups: g[0][7] = 7, g[5][0] = 50, g[3][4] = 34; sum = 8 * 10 * (0+1+...+5) + 6 * (0+...+7)
//   = 1200 + 168
// expect-output: 7 50 34 1368
// mixed: column 0 is p * 100 + 99; column 1 + r * 3 + s is p * 100 + r * 10 + s
// expect-output: 99 0 1 2 10 11 12
// expect-output: 199 100 101 102 110 111 112
// expect-output: 299 200 201 202 210 211 212
// nested: row-major g, w, t
// expect-output: 0 1 2 3 10 11 12 13 100 101 102 103 110 111 112 113
