// Streaming benchmark (bench/bench_cuda.py runs it): c = a + b over 256 MiB f32
// arrays, two-level parallel (a block per p, a thread per t), each thread moving
// 16-byte chunks with per-thread DMA. The kernel is timed with CUDA events
// (croktile::cuda::timing()) and compared with cudaMemcpy device-to-device
// bandwidth measured in the same process.
#include <algorithm>
#include <cstdio>
#include <vector>

__device__ void add4(const float* a, const float* b, float* c) {
#pragma unroll
  for (int i = 0; i < 4; ++i) c[i] = a[i] + b[i];
}

__co__ f32 [8192, 8, 256, 4] stream_add(f32 [8192, 8, 256, 4] a, f32 [8192, 8, 256, 4] b) {
  f32 [a.span] c;
  parallel p by 8192 {
    parallel t by 256 {
      with k in [8] {
        foreach k {
          x = dma.copy a.chunkat(p, k, t, _) => local;
          y = dma.copy b.chunkat(p, k, t, _) => local;
          local f32 [x.span] z;
          call add4(x.data, y.data, z);
          dma.copy z => c.chunkat(p, k, t, _);
        }
      }
    }
  }
  return c;
}

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  const std::size_t n = 8192ull * 8 * 256 * 4, bytes = n * sizeof(float);
  std::vector<float> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) { a[i] = float(i % 1000); b[i] = float(i % 7); }
  const int reps = 10;

  // baseline: cudaMemcpy device to device of one array, same process
  void *src = nullptr, *dst = nullptr;
  cudaMalloc(&src, bytes);
  cudaMalloc(&dst, bytes);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> copy_ms;
  for (int r = 0; r < reps + 1; ++r) {
    cudaEventRecord(e0);
    cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    if (r) copy_ms.push_back(ms);
  }
  cudaFree(src);
  cudaFree(dst);

  croktile::cuda::timing().enabled = true;
  std::vector<float> kernel_ms;
  for (int r = 0; r < reps + 1; ++r) {
    auto c = stream_add(choreo::make_spanview<4>(a.data(), {8192, 8, 256, 4}),
                        choreo::make_spanview<4>(b.data(), {8192, 8, 256, 4}));
    if (r) kernel_ms.push_back(croktile::cuda::timing().last_ms);
    if (r == reps)
      for (std::size_t i = 0; i < n; i += 9973)
        if (c.data()[i] != a[i] + b[i]) { std::printf("stream_add: wrong result at %zu\n", i); return 1; }
  }
  const double copy_gbs = 2.0 * bytes / (median(copy_ms) * 1e-3) / 1e9;    // read + write
  const double add_gbs = 3.0 * bytes / (median(kernel_ms) * 1e-3) / 1e9;   // 2 reads + 1 write
  std::printf("memcpy_d2d_ms %.4f memcpy_d2d_GBps %.1f\n", median(copy_ms), copy_gbs);
  std::printf("stream_add_ms %.4f stream_add_GBps %.1f\n", median(kernel_ms), add_gbs);
  std::printf("stream_ratio %.3f\n", add_gbs / copy_gbs);
  return 0;
}
