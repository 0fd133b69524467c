// Sized on the command line with the names kernel engineers use (-DM=... -DN=... -DK=...
// -DD=... -DT=... -DC=...), which the runtime headers also use as template parameters.
#include <cstdio>

__co__ f32 [M, N] scale(f32 [M, N] a) {
  f32 [a.span] c;
  parallel p by M {
    foreach j in [N] c.at(p, j) = a.at(p, j) * (K + D + T + C);
  }
  return c;
}

int main() {
  auto a = croktile::make_spandata<croktile::f32>(M, N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) a[i][j] = float(i * N + j);
  auto c = scale(a.view());
  double sum = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) sum += c[i][j];
  std::printf("M=%d N=%d sum=%.1f\n", M, N, sum);
}
