// Host and device arguments mixed in one call: neither overload of 'add' matches, so the
// C++ compiler rejects each call marked below (test_errors.py checks the lines). So does a
// view of a cl_mem made without its element type.
#include <vector>

__cok__ {
  extern "C" void add_k(const int* a, const int* b, int* c, int n) {
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
  }
}

__co__ s32 [a.span] add(s32 [N] a, s32 [N] b) {
  s32 [a.span] out;
  parallel p by 1 {
    x = dma.copy a => local;
    y = dma.copy b => local;
    local s32 [x.span] z;
    call add_k(x.data, y.data, z, |x.span|);
    dma.copy z => out;
  }
  return out;
}

int main() {
  std::vector<int> v(4, 1);
  auto host = croktile::make_spanview<1>(v.data(), {4});
  auto device = croktile::to_device(host);
  add(device.view(), host);                                   // MIXED: view and span
  add(host, device);                                          // MIXED: span and data
  auto result = add(host, host);
  add(device, result);                                        // MIXED: data and host data
#if defined(CL_SUCCESS)  // opencl: a cl_mem has no element type to deduce
  cl_mem mem = device.data();
  croktile::make_device_view<1>(mem, {4});                    // UNTYPED
#endif
  return 0;
}
