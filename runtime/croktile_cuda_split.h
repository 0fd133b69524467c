// The host half of a split cuda build (croktile_driver/targets/cuda/split_build.py).
//
// The generated source is compiled twice at once: by nvcc into a fatbinary of its kernels
// (-DCROKTILE_SPLIT_DEVICE), and by the host C++ compiler into the object
// (-DCROKTILE_SPLIT_HOST=<symbol>), which then holds the fatbinary at <symbol>. The host
// compiler sees each kernel with an empty body; a launch finds the kernel in the image
// by its name, a device variable likewise. The image is loaded once per process as a
// context-independent library (cudaLibraryLoadData: every device of the process).
#pragma once

#if defined(CROKTILE_SPLIT_HOST)

#include <cuda.h>
#include <cxxabi.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#ifndef __launch_bounds__   // cuda_runtime.h defines it for nvcc only; a kernel here has no body
#define __launch_bounds__(...)
#endif

extern "C" const unsigned char CROKTILE_SPLIT_HOST[];   // the fatbinary, beside this object's code

namespace croktile {
namespace cuda {

namespace detail {
// A kernel's name in the image as host code spells it: "_Z13gemm__launch0ILb1EEv..." is
// "void gemm__launch0<true>(...)" demangled, and "gemm__launch0<true>" here.
inline std::string kernel_spelling(const char* mangled) {
  int status = 0;
  char* text = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = (status == 0 && text) ? text : mangled;
  std::free(text);
  if (name.compare(0, 5, "void ") == 0) name.erase(0, 5);   // a template's name follows its result type
  return name.substr(0, name.find('('));
}
}  // namespace detail

class split_library {
 public:
  explicit split_library(const unsigned char* image) : image_(image) {}

  // The kernel `name` as host code spells it ("gemm__launch0<true>").
  const void* kernel(const char* name, const char* where) {
    std::lock_guard<std::mutex> lock(mutex_);
    load(where);
    for (const auto& k : kernels_)
      if (k.first == name) return k.second;
    throw runtime_error(std::string(where) + ": the kernel '" + name + "' is not in the build's device image");
  }

  // The current device's copy of the device variable `name`.
  void* global(const char* name, const char* where) {
    std::lock_guard<std::mutex> lock(mutex_);
    load(where);
    void* p = nullptr;
    std::size_t bytes = 0;
    check(cudaLibraryGetGlobal(&p, &bytes, library_, name), "cudaLibraryGetGlobal", where);
    return p;
  }

 private:
  void load(const char* where) {
    if (library_) return;
    check(cudaLibraryLoadData(&library_, image_, nullptr, nullptr, 0, nullptr, nullptr, 0), "cudaLibraryLoadData",
          where);
    unsigned count = 0;
    check(cudaLibraryGetKernelCount(&count, library_), "cudaLibraryGetKernelCount", where);
    std::vector<cudaKernel_t> found(count);
    if (count) check(cudaLibraryEnumerateKernels(found.data(), count, library_), "cudaLibraryEnumerateKernels", where);
    for (cudaKernel_t k : found) {
      const char* mangled = nullptr;
      check(cudaFuncGetName(&mangled, reinterpret_cast<const void*>(k)), "cudaFuncGetName", where);
      kernels_.emplace_back(detail::kernel_spelling(mangled), reinterpret_cast<const void*>(k));
    }
  }

  const unsigned char* image_;
  std::mutex mutex_;
  cudaLibrary_t library_ = nullptr;
  std::vector<std::pair<std::string, const void*>> kernels_;
};

namespace detail {
template <typename Tuple, std::size_t... I>
void launch_named(const void* kernel, long long grid, long long block, std::size_t smem, cudaStream_t stream,
                  const char* where, Tuple& values, std::index_sequence<I...>) {
  void* params[sizeof...(I) + 1] = {static_cast<void*>(&std::get<I>(values))...};
  check(cudaLaunchKernel(kernel, dim3(static_cast<unsigned>(grid)), dim3(static_cast<unsigned>(block)), params, smem,
                         stream),
        "cudaLaunchKernel", where);
}
}  // namespace detail

}  // namespace cuda
}  // namespace croktile

namespace {   // this translation unit's image
inline croktile::cuda::split_library& croktile_split_library() {
  static croktile::cuda::split_library library(CROKTILE_SPLIT_HOST);
  return library;
}
[[maybe_unused]] inline void* croktile_split_global(const char* name, const char* where) {
  return croktile_split_library().global(name, where);
}
}  // namespace

namespace croktile {
namespace cuda {
// A launch of a kernel of the image: the arguments converted to its parameters' types,
// passed by address.
template <typename... Params, typename... Args>
void launch(named_kernel<void(Params...)> k, long long grid, long long block, std::size_t smem, cudaStream_t stream,
            const char* where, Args&&... args) {
  if (grid <= 0) return;
  const void* kernel = croktile_split_library().kernel(k.name, where);
  std::tuple<typename std::remove_cv<Params>::type...> values(std::forward<Args>(args)...);
  detail::launch_with(kernel, grid, smem, stream, where, [&] {
    detail::launch_named(kernel, grid, block, smem, stream, where, values, std::index_sequence_for<Params...>{});
  });
}
}  // namespace cuda
}  // namespace croktile

#endif  // CROKTILE_SPLIT_HOST
