// The reference's parallel forms (README "Parallel levels"): unnamed levels, several levels
// in one statement, sub-levels as i-tuples, level annotations, bounds computed from
// parameters, `inthreads`, and bodies that are one statement or empty. Every instance
// writes its indices into its own element, so the output shows that each instance ran
// exactly once with the right indices. Expected values worked out by hand (see each line).
__cok__ {
extern "C" void put(int* c, int v) { c[0] = v; }
extern "C" void add(int* c, int v) { c[0] += v; }
}

// p by 2, then sub-levels {x, y} by [3, 4] (x the most significant): out[p][x][y] = pxy
__co__ s32 [2, 3, 4] sublevels(s32 [2, 3, 4] shape) {
  s32 [shape.span] out;
  parallel p by 2, {x, y} by [3, 4] {
    local s32 [1, 1, 1] t;
    call put(t, p * 100 + x * 10 + y);
    dma.copy t => out.chunkat(p, x, y);
  }
  return out;
}

// an unnamed outer level, a named i-tuple of sub-levels and '#' of its parts
__co__ s32 [2, 6] named_tuple(s32 [2, 6] shape) {
  s32 [shape.span] out;
  parallel by 1 {
    parallel i = {r, c} by [2, 6] {
      local s32 [1, 1] t;
      call put(t, r * #c + c + 1000 * #r);
      dma.copy t => out.chunkat(i);
    }
  }
  return out;
}

// annotated levels: block, group-4 (128 threads each), thread
__co__ s32 [2, 2, 128] annotated(s32 [2, 2, 128] shape) {
  s32 [shape.span] out;
  parallel b by 2 : block {
    parallel g by 2 : group-4 {
      parallel t by 128 : thread {
        local s32 [1, 1, 1] v;
        call put(v, b * 1000 + g * 200 + t);
        dma.copy v => out.chunkat(b, g, t);
      }
    }
  }
  return out;
}

// warps: `group` levels whose threads are sub-levels
__co__ s32 [3, 2, 32] warps(s32 [3, 2, 32] shape) {
  s32 [shape.span] out;
  parallel b by 3 : block, w by 2 : group, {ty, tx} by [4, 8] : thread {
    local s32 [1, 1, 32] v;
    local s32 [1, 1, 1] one;
    call put(one, b * 100 + w * 40 + ty * 8 + tx);
    lane = ty # tx;                      // a name for a bounded value is bounded: [0, 32)
    dma.copy one => out.chunkat(b, w, lane);
  }
  return out;
}

// a warp per instance and no thread level: on cuda the warp's first thread runs it
__co__ s32 [2, 3] lane0(s32 [2, 3] shape) {
  s32 [shape.span] out;
  parallel b by 2 : block, w by 3 : group {
    local s32 [1, 1] t;
    call put(t, b * 10 + w);
    dma.copy t => out.chunkat(b, w);
  }
  return out;
}

// counts from parameters and expressions; inthreads; one-statement and empty bodies
__co__ s32 [N, 8] masked(s32 [N, 8] a, int n, int m) {
  s32 [a.span] out;
  parallel by 3 ;
  parallel.async p by n, q by m * 2 + 2 {
    local s32 [1, 1] t;
    call put(t, 0);
    inthreads (p < 2) call add(t, 10);
    inthreads (q == 1 || q > 6) {
      call add(t, 1);
    }
    inthreads.async (p >= n - 1 && q < 2) with k in [3] foreach k call add(t, 100);
    dma.copy t => out.chunkat(p, q);
  }
  parallel r by N parallel s by 8 dma.copy a.chunkat(r, s) => a.chunkat(r, s);
  return out;
}

int main() {
  int buf[2 * 3 * 128] = {0};
  auto s = sublevels(choreo::make_spanview<3>(buf, {2, 3, 4}));
  long sum = 0;
  for (int p = 0; p < 2; ++p) for (int x = 0; x < 3; ++x) for (int y = 0; y < 4; ++y) sum += s[p][x][y];
  std::cout << s[0][0][1] << " " << s[1][2][3] << " " << s[0][1][0] << " " << sum << "\n";
  auto n = named_tuple(choreo::make_spanview<2>(buf, {2, 6}));
  std::cout << n[0][0] << " " << n[0][5] << " " << n[1][0] << " " << n[1][5] << "\n";
  auto a = annotated(choreo::make_spanview<3>(buf, {2, 2, 128}));
  sum = 0;
  for (int b = 0; b < 2; ++b) for (int g = 0; g < 2; ++g) for (int t = 0; t < 128; ++t) sum += a[b][g][t];
  std::cout << a[0][0][0] << " " << a[0][1][5] << " " << a[1][1][127] << " " << sum << "\n";
  auto w = warps(choreo::make_spanview<3>(buf, {3, 2, 32}));
  sum = 0;
  for (int b = 0; b < 3; ++b) for (int g = 0; g < 2; ++g) for (int t = 0; t < 32; ++t) sum += w[b][g][t];
  std::cout << w[0][0][9] << " " << w[2][1][31] << " " << sum << "\n";
  auto l = lane0(choreo::make_spanview<2>(buf, {2, 3}));
  std::cout << l[0][0] << " " << l[0][2] << " " << l[1][0] << " " << l[1][2] << "\n";
  auto m = masked(choreo::make_spanview<2>(buf, {3, 8}), 3, 3);
  for (int p = 0; p < 3; ++p) {
    for (int q = 0; q < 8; ++q) std::cout << (q ? " " : "") << m[p][q];
    std::cout << "\n";
  }
}
// sublevels: s[0][0][1] = 1, s[1][2][3] = 123, s[0][1][0] = 10;
//   sum = 12 * (0 + 100) + 2 * 4 * (0 + 10 + 20) + 2 * 3 * (0 + 1 + 2 + 3) = 1200 + 240 + 36
// expect-output: 1 123 10 1476
// named_tuple: r * 6 + c + 2000
// expect-output: 2000 2005 2006 2011
// annotated: b * 1000 + g * 200 + t; sum = 256 * 1000 + 256 * 200 + 4 * (127 * 128 / 2)
// expect-output: 0 205 1327 339712
// warps: b * 100 + w * 40 + (ty * 8 + tx); w[0][0][9] = 9, w[2][1][31] = 200 + 40 + 31;
//   sum = 64 * (0 + 100 + 200) + 96 * (0 + 40) + 6 * (31 * 32 / 2) = 19200 + 3840 + 2976
// expect-output: 9 271 26016
// lane0: b * 10 + w
// expect-output: 0 2 10 12
// masked: n = 3 rows, m * 2 + 2 = 8 columns; +10 for p < 2, +1 for q == 1 or q == 7,
//   +300 for p == 2 and q < 2
// expect-output: 10 11 10 10 10 10 10 11
// expect-output: 10 11 10 10 10 10 10 11
// expect-output: 300 301 0 0 0 0 0 1
