// Splitter: __co__ functions inside (nested) namespaces and after an extern "C" block
// are found, parsed and checked; the namespace braces around them are host C++.
extern "C" {
  void c_kernel(int *x, int n) {}
}

namespace app {
namespace kernels {

__device__ void kernel(int *x, int n) {}

__co__ void in_namespace(s32 [6, 4] a) {
  parallel p by 6 {
    f = dma.copy a.chunkat(p, _) => local;
    call kernel(f.data, 4);
  }
}

__co__ void checked_too(int n) {
  call kernel(n);               // expect-error: can only be called inside 'parallel'
}

}  // namespace kernels
}  // namespace app

int main() { app::kernels::in_namespace(/* ... */); }
