// Names near the reserved ones (frontend/reserved_names.py) build and run on every
// target: the spec's own example names a function `croktile_function`, and a variable
// may take a namespace's name (C++ looks a name before `::` up among namespaces and
// types only, so the generated code's `std::` and `croktile::` still mean the namespaces).
__co__ s32 [4] croktile_function(s32 [4] a) {
  s32 [4] out;
  int std = 2;
  int choreo = std + 1;
  parallel p by 2 {
    x = dma.copy a.chunkat(p) => local;
    foreach i in [2]
      x.data.at(i) = x.data.at(i) * choreo;
    dma.copy x.data => out.chunkat(p);
  }
  return out;
}

int main() {
  auto a = choreo::make_spandata<choreo::s32>(4);
  for (int i = 0; i < 4; ++i) a[i] = i + 1;
  auto out = croktile_function(a.view());
  std::cout << out[0] << " " << out[1] << " " << out[2] << " " << out[3] << "\n";
  // expect-output: 3 6 9 12
}
