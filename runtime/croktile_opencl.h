// What the opencl target's generated host code needs: the OpenCL platform,
// device, context and queue (chosen once per process), the device program
// (embedded in the binary, built on first use), RAII wrappers for buffers and
// kernels, host-level box copies, and the buffer through which device code
// reports a failed runtime check.
//
// Every OpenCL error becomes a croktile::runtime_error naming the .co.cpp
// location, the OpenCL call that failed and the error code's name.
//
// Environment (read once, on first use):
//   CROKTILE_OPENCL_PLATFORM       index or case-insensitive substring of the
//                                  platform name or vendor (default: the first
//                                  platform with a device of the requested type;
//                                  with no variable set, a GPU of any platform
//                                  before a CPU device)
//   CROKTILE_OPENCL_DEVICE         index or substring of the device name within
//                                  that platform (default: its first device)
//   CROKTILE_OPENCL_DEVICE_TYPE    all (default), cpu, gpu, accelerator, default
//   CROKTILE_OPENCL_BUILD_OPTIONS  extra options for clBuildProgram
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#if defined(__APPLE__)
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "croktile.h"
#include "croktile_check.h"
#include "croktile_cuda_host_shim.h"   // host programs written for cuda: their "device" data is host data
#include "croktile_device.h"

// Host segments may still hold __device__ functions the tileflow code never calls.
#ifndef __device__
#define __device__
#endif

namespace croktile {
namespace opencl {

inline const char* error_name(cl_int err) {
  switch (err) {
#define CROKTILE_CL_ERR(x) \
  case x:                  \
    return #x;
    CROKTILE_CL_ERR(CL_SUCCESS)
    CROKTILE_CL_ERR(CL_DEVICE_NOT_FOUND)
    CROKTILE_CL_ERR(CL_DEVICE_NOT_AVAILABLE)
    CROKTILE_CL_ERR(CL_COMPILER_NOT_AVAILABLE)
    CROKTILE_CL_ERR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    CROKTILE_CL_ERR(CL_OUT_OF_RESOURCES)
    CROKTILE_CL_ERR(CL_OUT_OF_HOST_MEMORY)
    CROKTILE_CL_ERR(CL_PROFILING_INFO_NOT_AVAILABLE)
    CROKTILE_CL_ERR(CL_MEM_COPY_OVERLAP)
    CROKTILE_CL_ERR(CL_IMAGE_FORMAT_MISMATCH)
    CROKTILE_CL_ERR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    CROKTILE_CL_ERR(CL_BUILD_PROGRAM_FAILURE)
    CROKTILE_CL_ERR(CL_MAP_FAILURE)
    CROKTILE_CL_ERR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    CROKTILE_CL_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    CROKTILE_CL_ERR(CL_COMPILE_PROGRAM_FAILURE)
    CROKTILE_CL_ERR(CL_LINKER_NOT_AVAILABLE)
    CROKTILE_CL_ERR(CL_LINK_PROGRAM_FAILURE)
    CROKTILE_CL_ERR(CL_DEVICE_PARTITION_FAILED)
    CROKTILE_CL_ERR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    CROKTILE_CL_ERR(CL_INVALID_VALUE)
    CROKTILE_CL_ERR(CL_INVALID_DEVICE_TYPE)
    CROKTILE_CL_ERR(CL_INVALID_PLATFORM)
    CROKTILE_CL_ERR(CL_INVALID_DEVICE)
    CROKTILE_CL_ERR(CL_INVALID_CONTEXT)
    CROKTILE_CL_ERR(CL_INVALID_QUEUE_PROPERTIES)
    CROKTILE_CL_ERR(CL_INVALID_COMMAND_QUEUE)
    CROKTILE_CL_ERR(CL_INVALID_HOST_PTR)
    CROKTILE_CL_ERR(CL_INVALID_MEM_OBJECT)
    CROKTILE_CL_ERR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    CROKTILE_CL_ERR(CL_INVALID_IMAGE_SIZE)
    CROKTILE_CL_ERR(CL_INVALID_SAMPLER)
    CROKTILE_CL_ERR(CL_INVALID_BINARY)
    CROKTILE_CL_ERR(CL_INVALID_BUILD_OPTIONS)
    CROKTILE_CL_ERR(CL_INVALID_PROGRAM)
    CROKTILE_CL_ERR(CL_INVALID_PROGRAM_EXECUTABLE)
    CROKTILE_CL_ERR(CL_INVALID_KERNEL_NAME)
    CROKTILE_CL_ERR(CL_INVALID_KERNEL_DEFINITION)
    CROKTILE_CL_ERR(CL_INVALID_KERNEL)
    CROKTILE_CL_ERR(CL_INVALID_ARG_INDEX)
    CROKTILE_CL_ERR(CL_INVALID_ARG_VALUE)
    CROKTILE_CL_ERR(CL_INVALID_ARG_SIZE)
    CROKTILE_CL_ERR(CL_INVALID_KERNEL_ARGS)
    CROKTILE_CL_ERR(CL_INVALID_WORK_DIMENSION)
    CROKTILE_CL_ERR(CL_INVALID_WORK_GROUP_SIZE)
    CROKTILE_CL_ERR(CL_INVALID_WORK_ITEM_SIZE)
    CROKTILE_CL_ERR(CL_INVALID_GLOBAL_OFFSET)
    CROKTILE_CL_ERR(CL_INVALID_EVENT_WAIT_LIST)
    CROKTILE_CL_ERR(CL_INVALID_EVENT)
    CROKTILE_CL_ERR(CL_INVALID_OPERATION)
    CROKTILE_CL_ERR(CL_INVALID_GL_OBJECT)
    CROKTILE_CL_ERR(CL_INVALID_BUFFER_SIZE)
    CROKTILE_CL_ERR(CL_INVALID_MIP_LEVEL)
    CROKTILE_CL_ERR(CL_INVALID_GLOBAL_WORK_SIZE)
    CROKTILE_CL_ERR(CL_INVALID_PROPERTY)
    CROKTILE_CL_ERR(CL_INVALID_IMAGE_DESCRIPTOR)
    CROKTILE_CL_ERR(CL_INVALID_COMPILER_OPTIONS)
    CROKTILE_CL_ERR(CL_INVALID_LINKER_OPTIONS)
    CROKTILE_CL_ERR(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef CROKTILE_CL_ERR
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "unknown OpenCL error";
  }
}

// "<where>: <call> failed: CL_NAME (code)<detail>"
[[noreturn]] inline void fail(const char* where, const char* call, cl_int err,
                              const std::string& detail = std::string()) {
  throw croktile::runtime_error(std::string(where) + ": " + call + " failed: " + error_name(err) +
                                " (" + std::to_string(err) + ")" + detail);
}

inline void check(cl_int err, const char* call, const char* where) {
  if (err != CL_SUCCESS) fail(where, call, err);
}

namespace detail {

inline std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

inline bool is_index(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

inline std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

inline std::string platform_info(cl_platform_id p, cl_platform_info what) {
  std::size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return std::string();
  std::string s(n, '\0');
  if (clGetPlatformInfo(p, what, n, &s[0], nullptr) != CL_SUCCESS) return std::string();
  return std::string(s.c_str());
}

inline std::string device_info(cl_device_id d, cl_device_info what) {
  std::size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return std::string();
  std::string s(n, '\0');
  if (clGetDeviceInfo(d, what, n, &s[0], nullptr) != CL_SUCCESS) return std::string();
  return std::string(s.c_str());
}

inline cl_device_type device_type(const char* where) {
  const std::string t = lower(env("CROKTILE_OPENCL_DEVICE_TYPE"));
  if (t.empty() || t == "all") return CL_DEVICE_TYPE_ALL;
  if (t == "cpu") return CL_DEVICE_TYPE_CPU;
  if (t == "gpu") return CL_DEVICE_TYPE_GPU;
  if (t == "accelerator") return CL_DEVICE_TYPE_ACCELERATOR;
  if (t == "default") return CL_DEVICE_TYPE_DEFAULT;
  throw croktile::runtime_error(std::string(where) + ": CROKTILE_OPENCL_DEVICE_TYPE='" + t +
                                "' is not one of all, cpu, gpu, accelerator, default");
}

inline std::vector<cl_device_id> devices_of(cl_platform_id p, cl_device_type type, cl_int* err) {
  cl_uint n = 0;
  *err = clGetDeviceIDs(p, type, 0, nullptr, &n);
  if (*err != CL_SUCCESS) return {};
  std::vector<cl_device_id> out(n);
  *err = clGetDeviceIDs(p, type, n, out.data(), nullptr);
  if (*err != CL_SUCCESS) return {};
  return out;
}

}  // namespace detail

// The process-wide platform, device, context and in-order queue. Chosen on first
// use; a failure throws and the next call tries again. Never destroyed: releasing
// OpenCL objects during static destruction races the ICD's own teardown.
class runtime {
 public:
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  std::string platform_name, device_name;
  cl_ulong max_alloc = 0;  // CL_DEVICE_MAX_MEM_ALLOC_SIZE
  cl_uint base_align = 0;  // CL_DEVICE_MEM_BASE_ADDR_ALIGN, in bytes: where every buffer starts
  cl_uint compute_units = 0;  // CL_DEVICE_MAX_COMPUTE_UNITS

  static runtime& get(const char* where) {
    static std::mutex mutex;
    static runtime* instance = nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    if (instance == nullptr) {
      runtime* made = new runtime();
      try {
        made->open(where);
      } catch (...) {
        made->close();
        delete made;
        throw;
      }
      instance = made;
    }
    return *instance;
  }

 private:
  runtime() = default;

  void close() {
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
    queue = nullptr;
    context = nullptr;
  }

  void open(const char* where) {
    using namespace detail;
    cl_uint count = 0;
    cl_int err = clGetPlatformIDs(0, nullptr, &count);
    if (err == CL_SUCCESS && count == 0) err = -1001;
    if (err != CL_SUCCESS)
      fail(where, "clGetPlatformIDs", err,
           ": no OpenCL platform is installed (Debian: apt-get install pocl-opencl-icd)");
    std::vector<cl_platform_id> platforms(count);
    check(clGetPlatformIDs(count, platforms.data(), nullptr), "clGetPlatformIDs", where);
    const cl_device_type type = device_type(where);
    const std::string want_platform = env("CROKTILE_OPENCL_PLATFORM");
    const std::string want_device = env("CROKTILE_OPENCL_DEVICE");

    std::string known;
    for (cl_uint i = 0; i < count; ++i)
      known += (i ? ", " : "") + std::to_string(i) + ": '" + platform_info(platforms[i], CL_PLATFORM_NAME) + "'";
    std::vector<cl_platform_id> candidates;
    if (want_platform.empty()) {
      candidates = platforms;
    } else if (is_index(want_platform)) {
      const unsigned long i = std::strtoul(want_platform.c_str(), nullptr, 10);
      if (i >= count)
        throw croktile::runtime_error(std::string(where) + ": CROKTILE_OPENCL_PLATFORM=" + want_platform +
                                      ": there are " + std::to_string(count) + " OpenCL platforms (" + known + ")");
      candidates.push_back(platforms[i]);
    } else {
      for (cl_platform_id p : platforms) {
        const std::string text = lower(platform_info(p, CL_PLATFORM_NAME) + " " + platform_info(p, CL_PLATFORM_VENDOR));
        if (text.find(lower(want_platform)) != std::string::npos) candidates.push_back(p);
      }
      if (candidates.empty())
        throw croktile::runtime_error(std::string(where) + ": CROKTILE_OPENCL_PLATFORM='" + want_platform +
                                      "' matches no OpenCL platform (" + known + ")");
    }
    cl_int last = CL_DEVICE_NOT_FOUND;
    // With nothing asked for, a GPU of any platform comes before the first platform's
    // CPU device (PoCL is often listed first); without a GPU, the first device of any type.
    const bool nothing_asked = want_platform.empty() && want_device.empty() && env("CROKTILE_OPENCL_DEVICE_TYPE").empty();
    std::vector<cl_device_type> passes{type};
    if (nothing_asked) passes.insert(passes.begin(), CL_DEVICE_TYPE_GPU);
    for (cl_device_type pass : passes) {
      if (device != nullptr) break;
      for (cl_platform_id p : candidates) {
        std::vector<cl_device_id> devs = devices_of(p, pass, &last);
        if (devs.empty()) continue;
        std::string dev_known;
        for (std::size_t i = 0; i < devs.size(); ++i)
          dev_known += (i ? ", " : "") + std::to_string(i) + ": '" + device_info(devs[i], CL_DEVICE_NAME) + "'";
        cl_device_id chosen = nullptr;
        if (want_device.empty()) {
          chosen = devs[0];
        } else if (is_index(want_device)) {
          const unsigned long i = std::strtoul(want_device.c_str(), nullptr, 10);
          if (i < devs.size()) chosen = devs[i];
        } else {
          for (cl_device_id d : devs)
            if (lower(device_info(d, CL_DEVICE_NAME)).find(lower(want_device)) != std::string::npos) {
              chosen = d;
              break;
            }
        }
        if (chosen == nullptr) {
          if (candidates.size() == 1)
            throw croktile::runtime_error(std::string(where) + ": CROKTILE_OPENCL_DEVICE='" + want_device +
                                          "' matches no device of OpenCL platform '" +
                                          platform_info(p, CL_PLATFORM_NAME) + "' (" + dev_known + ")");
          continue;
        }
        platform = p;
        device = chosen;
        break;
      }
    }
    if (device == nullptr) {
      if (!want_device.empty() && last == CL_SUCCESS)
        throw croktile::runtime_error(std::string(where) + ": CROKTILE_OPENCL_DEVICE='" + want_device +
                                      "' matches no device of any OpenCL platform (" + known + ")");
      fail(where, "clGetDeviceIDs", last,
           ": no OpenCL device of type '" + (env("CROKTILE_OPENCL_DEVICE_TYPE").empty()
                                                  ? std::string("all")
                                                  : env("CROKTILE_OPENCL_DEVICE_TYPE")) +
               "' on platforms " + known);
    }
    platform_name = platform_info(platform, CL_PLATFORM_NAME);
    device_name = device_info(device, CL_DEVICE_NAME);
    check(clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, nullptr),
          "clGetDeviceInfo", where);
    if (clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof compute_units, &compute_units, nullptr) != CL_SUCCESS)
      compute_units = 0;
    cl_uint align_bits = 0;
    if (clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, nullptr) == CL_SUCCESS)
      base_align = align_bits / 8;
    cl_int e = CL_SUCCESS;
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                           reinterpret_cast<cl_context_properties>(platform), 0};
    context = clCreateContext(props, 1, &device, nullptr, nullptr, &e);
    check(e, "clCreateContext", where);
    queue = clCreateCommandQueue(context, device, 0, &e);
    check(e, "clCreateCommandQueue", where);
  }
};

// The device program of one generated source: its OpenCL C text is embedded in
// the binary; it is built on first use (once per process) and reused. A failed
// build throws with the build log, whose locations are the .co.cpp file's (the
// generated source carries #line directives); later calls throw the same error.
class program {
 public:
  program(const char* source, std::size_t length, const char* file)
      : source_(source), length_(length), file_(file) {}
  program(const program&) = delete;
  program& operator=(const program&) = delete;

  cl_program get(runtime& rt, const char* where) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (program_ != nullptr) return program_;
    if (!error_.empty()) throw croktile::runtime_error(error_);
    cl_int err = CL_SUCCESS;
    const char* src = source_;
    cl_program p = clCreateProgramWithSource(rt.context, 1, &src, &length_, &err);
    check(err, "clCreateProgramWithSource", where);
    // croktilec checks the program with this standard at build time (targets/opencl/check.py)
    std::string options = "-cl-std=CL1.2";
    const std::string extra = detail::env("CROKTILE_OPENCL_BUILD_OPTIONS");
    if (!extra.empty()) options += " " + extra;
    err = clBuildProgram(p, 1, &rt.device, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      std::string log;
      std::size_t n = 0;
      if (clGetProgramBuildInfo(p, rt.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) == CL_SUCCESS && n > 1) {
        log.assign(n, '\0');
        clGetProgramBuildInfo(p, rt.device, CL_PROGRAM_BUILD_LOG, n, &log[0], nullptr);
        log = std::string(log.c_str());
      }
      clReleaseProgram(p);
      while (!log.empty() && (log.back() == '\n' || log.back() == ' ')) log.pop_back();
      error_ = std::string(where) + ": clBuildProgram failed: " + error_name(err) + " (" + std::to_string(err) +
               "): the OpenCL device program of " + file_ + " does not build for device '" + rt.device_name +
               "' (options: " + options + "); build log:\n" + (log.empty() ? std::string("(empty)") : log);
      throw croktile::runtime_error(error_);
    }
    program_ = p;
    return program_;
  }

 private:
  const char* source_;
  std::size_t length_;
  std::string file_;
  std::mutex mutex_;
  cl_program program_ = nullptr;  // kept for the life of the process, like the runtime
  std::string error_;
};

namespace detail {
// Freed device memory, kept per queue and size for the next call on that queue (a
// later command on the same queue comes after the commands that used it: in order,
// or behind the barrier croktile puts before each command on an out-of-order queue).
class memory_pool {
 public:
  static memory_pool& get() {
    static memory_pool* p = new memory_pool();  // never destroyed, like the runtime
    return *p;
  }
  cl_mem take(cl_command_queue q, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = free_.find({q, bytes});
    if (it == free_.end() || it->second.empty()) return nullptr;
    cl_mem m = it->second.back();
    it->second.pop_back();
    return m;
  }
  void give(cl_command_queue q, cl_mem m) {
    std::size_t bytes = 0;
    if (clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof bytes, &bytes, nullptr) != CL_SUCCESS) {
      clReleaseMemObject(m);
      return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    free_[{q, bytes}].push_back(m);
  }
  // Releases what is kept for `q` (all queues when q is null).
  void trim(cl_command_queue q) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = free_.begin(); it != free_.end();) {
      if (q != nullptr && it->first.first != q) {
        ++it;
        continue;
      }
      for (cl_mem m : it->second) clReleaseMemObject(m);
      it = free_.erase(it);
    }
  }

 private:
  std::mutex mutex_;
  std::map<std::pair<cl_command_queue, std::size_t>, std::vector<cl_mem>> free_;
};
}  // namespace detail

// The queue a call runs on: the caller's, else croktile's own in-order queue.
inline cl_command_queue queue_of(runtime& rt, cl_command_queue q) { return q ? q : rt.queue; }

// On an out-of-order queue, a barrier before each croktile command keeps the
// commands of a call, and successive calls, in the order they were queued.
inline void order(cl_command_queue q, const char* where) {
  cl_command_queue_properties props = 0;
  check(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr), "clGetCommandQueueInfo", where);
  if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    check(clEnqueueBarrierWithWaitList(q, 0, nullptr, nullptr), "clEnqueueBarrierWithWaitList", where);
}

// Device memory for `bytes` (at least 1: a cl_mem cannot be empty) from the pool of `q`.
inline cl_mem allocate(runtime& rt, cl_command_queue q, std::size_t bytes, const char* where) {
  if (bytes == 0) bytes = 1;
  if (cl_mem m = detail::memory_pool::get().take(q, bytes)) return m;
  // Some implementations (PoCL) allocate lazily and accept any size here.
  if (rt.max_alloc != 0 && bytes > rt.max_alloc)
    fail(where, "clCreateBuffer", CL_INVALID_BUFFER_SIZE,
         " (" + std::to_string(bytes) + " bytes; device '" + rt.device_name + "' allocates at most " +
             std::to_string(rt.max_alloc) + ")");
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(rt.context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
  check(err, "clCreateBuffer", where);
  return m;
}

inline void fill_zero(cl_command_queue q, cl_mem m, std::size_t bytes, const char* where) {
  if (bytes == 0) return;
  order(q, where);
  // the widest pattern that divides the size, so that the implementation may store 16 bytes
  // at a time
  const cl_uint pattern[4] = {0, 0, 0, 0};
  const std::size_t width = bytes % 16 == 0 ? 16 : bytes % 4 == 0 ? 4 : 1;
  check(clEnqueueFillBuffer(q, m, pattern, width, 0, bytes, 0, nullptr, nullptr), "clEnqueueFillBuffer", where);
}

// Sets `count` elements of type T to `v` (a declaration with an initialiser).
template <typename T>
inline void fill_value(cl_command_queue q, cl_mem m, std::size_t count, T v, const char* where) {
  if (count == 0) return;
  order(q, where);
  check(clEnqueueFillBuffer(q, m, &v, sizeof(T), 0, count * sizeof(T), 0, nullptr, nullptr), "clEnqueueFillBuffer",
        where);
}

// Device memory of a generated function: from the pool of its queue (returned when
// it goes out of scope), or the caller's (never released).
class buffer {
 public:
  buffer() = default;
  buffer(runtime& rt, cl_command_queue q, std::size_t bytes, const char* where, bool zero = true)
      : mem_(allocate(rt, q, bytes, where)), queue_(q) {
    if (zero) {
      try {
        fill_zero(q, mem_, bytes, where);
      } catch (...) {
        detail::memory_pool::get().give(queue_, mem_);
        throw;
      }
    }
  }
  static buffer borrow(cl_mem m) {
    buffer b;
    b.mem_ = m;
    return b;
  }
  ~buffer() {
    if (mem_ != nullptr && queue_ != nullptr) detail::memory_pool::get().give(queue_, mem_);
  }
  buffer(buffer&& o) noexcept : mem_(std::exchange(o.mem_, nullptr)), queue_(std::exchange(o.queue_, nullptr)) {}
  buffer& operator=(buffer&& o) noexcept {
    std::swap(mem_, o.mem_);
    std::swap(queue_, o.queue_);
    return *this;
  }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;

  cl_mem get() const { return mem_; }
  // Hands the memory to a device_data, which returns it to the same pool.
  template <typename T>
  cl_mem release() {
    queue_ = nullptr;
    return std::exchange(mem_, nullptr);
  }

 private:
  cl_mem mem_ = nullptr;
  cl_command_queue queue_ = nullptr;  // set when the memory is the pool's
};

// Arguments of the device form: buffers of croktile's context, large enough for their views.
inline void expect_device(runtime& rt, cl_mem m, std::size_t bytes, const char* arg, const char* fn,
                          const char* where) {
  if (m == nullptr) {
    if (bytes == 0) return;
    throw croktile::runtime_error(std::string(where) + ": argument '" + arg + "' of '" + fn + "' is a null cl_mem");
  }
  cl_context ctx = nullptr;
  std::size_t size = 0;
  cl_int err = clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof ctx, &ctx, nullptr);
  if (err == CL_SUCCESS) err = clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, nullptr);
  if (err != CL_SUCCESS)
    fail(where, "clGetMemObjectInfo", err, std::string(" (argument '") + arg + "' of '" + fn + "' is not a cl_mem)");
  if (ctx != rt.context)
    throw croktile::runtime_error(std::string(where) + ": argument '" + arg + "' of '" + fn +
                                  "' is a buffer of another OpenCL context; make it in croktile::opencl::context()");
  if (size < bytes)
    throw croktile::runtime_error(std::string(where) + ": argument '" + arg + "' of '" + fn + "' is a buffer of " +
                                  std::to_string(size) + " bytes, but its view needs " + std::to_string(bytes));
}

// The queue of a call, checked to belong to croktile's context.
inline cl_command_queue expect_queue(runtime& rt, cl_command_queue q, const char* where) {
  q = queue_of(rt, q);
  cl_context ctx = nullptr;
  check(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr), "clGetCommandQueueInfo", where);
  if (ctx != rt.context)
    throw croktile::runtime_error(std::string(where) +
                                  ": the stream is a command queue of another OpenCL context; make it in "
                                  "croktile::opencl::context() (or use croktile::unique_stream)");
  return q;
}

// One launch of a generated __kernel; released when it goes out of scope.
class kernel {
 public:
  kernel(cl_program program, const char* name, const char* where) : name_(name) {
    cl_int err = CL_SUCCESS;
    kernel_ = clCreateKernel(program, name, &err);
    if (err != CL_SUCCESS) fail(where, "clCreateKernel", err, std::string(" (kernel '") + name + "')");
  }
  ~kernel() {
    if (kernel_ != nullptr) clReleaseKernel(kernel_);
  }
  kernel(const kernel&) = delete;
  kernel& operator=(const kernel&) = delete;

  void arg(cl_uint index, const buffer& b, const char* where) { arg(index, b.get(), where); }
  void arg(cl_uint index, cl_mem m, const char* where) { set(index, sizeof m, &m, where); }
  template <typename T>
  void value(cl_uint index, T v, const char* where) {
    set(index, sizeof v, &v, where);
  }
  void local(cl_uint index, std::size_t bytes, const char* where) {
    set(index, bytes ? bytes : 1, nullptr, where);
  }

  // `groups` work-groups of `group_size` work-items (fewer if the device allows
  // fewer for this kernel: generated kernels loop over the inner instances), queued
  // on `q`; an execution error is reported at the next synchronize. `exact` (a kernel
  // whose inner instances meet at barriers, a work-item each): why the group must have
  // exactly `group_size` work-items; fewer is an error that says so.
  void launch(runtime& rt, cl_command_queue q, long long groups, long long group_size, const char* where,
              const char* exact = nullptr) {
    if (groups <= 0) return;
    if (group_size <= 0) group_size = 1;
    if (group_size > 1) {
      std::size_t most = 0;
      cl_int err = clGetKernelWorkGroupInfo(kernel_, rt.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most,
                                            nullptr);
      if (err != CL_SUCCESS) fail(where, "clGetKernelWorkGroupInfo", err, " (kernel '" + name_ + "')");
      if (most > 0 && static_cast<std::size_t>(group_size) > most) {
        if (exact != nullptr)
          throw croktile::runtime_error(std::string(where) + ": " + exact + ": they need a work-group of " +
                                        std::to_string(group_size) + " work-items, and the device allows " +
                                        std::to_string(most) + " for kernel '" + name_ + "'");
        group_size = static_cast<long long>(most);
      }
    }
    const std::size_t local = static_cast<std::size_t>(group_size);
    const std::size_t global = static_cast<std::size_t>(groups) * local;
    order(q, where);
    cl_int err = clEnqueueNDRangeKernel(q, kernel_, 1, nullptr, &global, &local, 0, nullptr, nullptr);
    if (err != CL_SUCCESS)
      fail(where, "clEnqueueNDRangeKernel", err,
           " (kernel '" + name_ + "', " + std::to_string(groups) + " work-groups of " +
               std::to_string(group_size) + " work-items)");
  }

 private:
  void set(cl_uint index, std::size_t size, const void* v, const char* where) {
    cl_int err = clSetKernelArg(kernel_, index, size, v);
    if (err != CL_SUCCESS)
      fail(where, "clSetKernelArg", err, " (kernel '" + name_ + "', argument " + std::to_string(index) + ")");
  }

  cl_kernel kernel_ = nullptr;
  std::string name_;
};

// A global buffer of a launch: its memory, the bytes the kernel may touch from its start,
// whether the kernel writes it.
struct kernel_range {
  cl_mem mem;
  long long bytes;
  bool written;
};

// The work-groups per instance of a split launch (croktile::detail::split_for) on the
// runtime's device.
inline long long split_count(const runtime& rt, long long groups, long long trips) {
  return croktile::detail::split_for(groups, trips, rt.compute_units);
}

// Whether a launch may take the kernel's fast instance (targets/opencl/fast.py): every
// buffer starts 16-byte aligned (a buffer at the device's base alignment, a sub-buffer at
// its origin in its buffer) and none that the kernel writes overlaps another (the same
// cl_mem twice, or ranges of one buffer that meet), as croktile::cuda::fast_instance.
// The fast instance's vector copies take no address test and its pointers are restrict.
inline bool fast_instance(runtime& rt, std::initializer_list<kernel_range> ranges) {
  if (rt.base_align == 0 || rt.base_align % 16 != 0) return false;
  struct placed {
    cl_mem root;
    unsigned long long at, end;
    bool written;
  };
  std::vector<placed> all;
  all.reserve(ranges.size());
  for (const kernel_range& r : ranges) {
    if (r.mem == nullptr) continue;  // an empty view touches nothing
    cl_mem parent = nullptr;
    std::size_t origin = 0;
    if (clGetMemObjectInfo(r.mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, nullptr) != CL_SUCCESS)
      return false;
    if (parent != nullptr &&
        clGetMemObjectInfo(r.mem, CL_MEM_OFFSET, sizeof origin, &origin, nullptr) != CL_SUCCESS)
      return false;
    if (origin % 16 != 0) return false;
    all.push_back({parent != nullptr ? parent : r.mem, origin, origin + static_cast<unsigned long long>(r.bytes),
                   r.written});
  }
  for (std::size_t i = 0; i < all.size(); ++i)
    for (std::size_t j = i + 1; j < all.size(); ++j)
      if ((all[i].written || all[j].written) && all[i].root == all[j].root && all[i].at < all[j].end &&
          all[j].at < all[i].end)
        return false;
  return true;
}

// The launch at `where` takes the kernel's generic instance (a buffer not 16-byte aligned,
// or results overlapping another argument). Built with -DCROKTILE_REQUIRE_FAST_INSTANCE,
// that is an error: to check that a program's kernels run their fast code for its data.
inline void generic_instance([[maybe_unused]] const char* where) {
#if defined(CROKTILE_REQUIRE_FAST_INSTANCE)
  throw croktile::runtime_error(std::string(where) + ": the kernel's generic instance is launched "
                                "(CROKTILE_REQUIRE_FAST_INSTANCE): a buffer is not 16-byte aligned, or results "
                                "overlap another argument");
#endif
}

// Where the kernels of one generated function record a failed runtime check
// (check id + 1, then the values; the first failure wins): a small buffer of
// croktile's context, one per function, read at the next synchronize.
class check_slot;
namespace detail {
struct check_slots {
  std::mutex mutex;
  std::vector<check_slot*> all;
  static check_slots& get() {
    static check_slots* s = new check_slots();
    return *s;
  }
};
}  // namespace detail

class check_slot {
 public:
  static constexpr int max_values = 4;
  static constexpr std::size_t bytes = sizeof(cl_int) * (2 + 2 * max_values);
  explicit check_slot(void (*report)(int, const long long*)) : report_(report) {}
  check_slot(const check_slot&) = delete;
  check_slot& operator=(const check_slot&) = delete;

  cl_mem get(runtime& rt, const char* where) {
    auto& slots = detail::check_slots::get();
    std::lock_guard<std::mutex> lock(slots.mutex);
    if (mem_ == nullptr) {
      const cl_int zeros[2 + 2 * max_values] = {};
      cl_int err = CL_SUCCESS;
      cl_mem m = clCreateBuffer(rt.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                                const_cast<cl_int*>(zeros), &err);
      check(err, "clCreateBuffer", where);
      mem_ = m;
      slots.all.push_back(this);
    }
    return mem_;
  }

  // With the registry locked, after `q` finished: a recorded failure is cleared and returned.
  bool take(cl_command_queue q, int& id, long long (&values)[max_values], const char* where) {
    cl_int h[2 + 2 * max_values] = {};
    check(clEnqueueReadBuffer(q, mem_, CL_TRUE, 0, bytes, h, 0, nullptr, nullptr), "clEnqueueReadBuffer", where);
    if (h[0] == 0) return false;
    id = h[0] - 1;
    std::memcpy(values, h + 2, sizeof values);
    const cl_int zero = 0;
    check(clEnqueueWriteBuffer(q, mem_, CL_TRUE, 0, sizeof zero, &zero, 0, nullptr, nullptr), "clEnqueueWriteBuffer",
          where);
    return true;
  }
  void (*report() const)(int, const long long*) { return report_; }

 private:
  void (*report_)(int, const long long*);
  cl_mem mem_ = nullptr;  // kept for the life of the process
};

// Waits for `q` (croktile's queue if null); a failed command, then a failed
// device-side check of any call, throws croktile::runtime_error.
inline void synchronize(cl_command_queue q, const char* where) {
  runtime& rt = runtime::get(where);
  q = queue_of(rt, q);
  check(clFinish(q), "clFinish", where);
  auto& slots = detail::check_slots::get();
  int id = 0;
  long long values[check_slot::max_values] = {};
  void (*report)(int, const long long*) = nullptr;
  {
    std::lock_guard<std::mutex> lock(slots.mutex);
    for (check_slot* s : slots.all)
      if (s->take(q, id, values, where)) {
        report = s->report();
        break;
      }
  }
  if (report) report(id, values);
}

// Host-level dma.copy between two device buffers: the box `ext` at `src_off` of a
// row-major array shaped `src_shape` goes to `dst_off` of one shaped `dst_shape`,
// one clEnqueueCopyBufferRect per 2-d slab, queued on `q`.
template <std::size_t Rank>
void copy_box(runtime& rt, cl_command_queue q, const buffer& src, const long long (&src_shape)[Rank], const long long (&src_off)[Rank],
              const buffer& dst, const long long (&dst_shape)[Rank], const long long (&dst_off)[Rank],
              const long long (&ext)[Rank], std::size_t elem, const char* where) {
  long long total = 1;
  for (std::size_t d = 0; d < Rank; ++d) total *= ext[d];
  if (total <= 0) return;
  (void)rt;
  order(q, where);  // the slabs are disjoint: only what came before is waited for
  const std::size_t last = Rank - 1;
  const std::size_t rows_dim = Rank >= 2 ? Rank - 2 : 0;
  const std::size_t src_row = static_cast<std::size_t>(src_shape[last]) * elem;
  const std::size_t dst_row = static_cast<std::size_t>(dst_shape[last]) * elem;
  const std::size_t src_slab = Rank >= 2 ? src_row * static_cast<std::size_t>(src_shape[rows_dim]) : src_row;
  const std::size_t dst_slab = Rank >= 2 ? dst_row * static_cast<std::size_t>(dst_shape[rows_dim]) : dst_row;
  const std::size_t outer = Rank >= 2 ? Rank - 2 : 0;  // dimensions walked on the host
  long long idx[Rank > 2 ? Rank : 1] = {};
  for (;;) {
    std::size_t src_z = 0, dst_z = 0;  // slab index of the outer dimensions
    for (std::size_t d = 0; d < outer; ++d) {
      src_z = src_z * static_cast<std::size_t>(src_shape[d]) + static_cast<std::size_t>(src_off[d] + idx[d]);
      dst_z = dst_z * static_cast<std::size_t>(dst_shape[d]) + static_cast<std::size_t>(dst_off[d] + idx[d]);
    }
    const std::size_t src_origin[3] = {static_cast<std::size_t>(src_off[last]) * elem,
                                       Rank >= 2 ? static_cast<std::size_t>(src_off[rows_dim]) : 0, src_z};
    const std::size_t dst_origin[3] = {static_cast<std::size_t>(dst_off[last]) * elem,
                                       Rank >= 2 ? static_cast<std::size_t>(dst_off[rows_dim]) : 0, dst_z};
    const std::size_t region[3] = {static_cast<std::size_t>(ext[last]) * elem,
                                   Rank >= 2 ? static_cast<std::size_t>(ext[rows_dim]) : 1, 1};
    check(clEnqueueCopyBufferRect(q, src.get(), dst.get(), src_origin, dst_origin, region, src_row,
                                  src_slab, dst_row, dst_slab, 0, nullptr, nullptr),
          "clEnqueueCopyBufferRect", where);
    std::size_t d = outer;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++idx[d] < ext[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace opencl
}  // namespace croktile

// ---------------------------------------------------------------------------
// The device-data backend (croktile_device.h): cl_mem buffers of croktile's
// context, command queues as streams, a reuse pool per queue. Its API:
// croktile::opencl::device_view, ...
// ---------------------------------------------------------------------------
namespace croktile {
namespace opencl {

struct backend {
  template <typename T>
  using device_pointer = cl_mem;
  static constexpr bool typed_pointers = false;
  static constexpr int dlpack_device_type = 4;  // kDLOpenCL
  using native_stream = cl_command_queue;

  static native_stream default_stream() { return nullptr; }  // croktile's own in-order queue
  static native_stream create_stream(bool out_of_order, const char* where) {
    runtime& rt = runtime::get(where);
    cl_int err = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(rt.context, rt.device,
                                              out_of_order ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, &err);
    if (err == CL_INVALID_QUEUE_PROPERTIES && out_of_order)
      fail(where, "clCreateCommandQueue", err, " (device '" + rt.device_name + "' has no out-of-order queues)");
    check(err, "clCreateCommandQueue", where);
    return q;
  }
  static void destroy_stream(native_stream q) noexcept {
    if (q == nullptr) return;
    clFinish(q);
    detail::memory_pool::get().trim(q);
    clReleaseCommandQueue(q);
  }
  template <typename T>
  static cl_mem allocate(std::size_t count, native_stream q, const char* where) {
    runtime& rt = runtime::get(where);
    return opencl::allocate(rt, queue_of(rt, q), count * sizeof(T), where);
  }
  template <typename T>
  static void release(cl_mem m, native_stream q) noexcept {
    if (m == nullptr) return;
    try {
      detail::memory_pool::get().give(queue_of(runtime::get("croktile"), q), m);
    } catch (...) {
      clReleaseMemObject(m);
    }
  }
  static void zero(cl_mem m, std::size_t bytes, native_stream q, const char* where) {
    runtime& rt = runtime::get(where);
    fill_zero(queue_of(rt, q), m, bytes, where);
  }
  static void upload(cl_mem dst, const void* src, std::size_t bytes, native_stream q, const char* where) {
    if (bytes == 0) return;
    q = queue_of(runtime::get(where), q);
    order(q, where);
    check(clEnqueueWriteBuffer(q, dst, CL_TRUE, 0, bytes, src, 0, nullptr, nullptr), "clEnqueueWriteBuffer", where);
  }
  static void download(void* dst, cl_mem src, std::size_t bytes, native_stream q, const char* where) {
    if (bytes == 0) return;
    q = queue_of(runtime::get(where), q);
    order(q, where);
    check(clEnqueueReadBuffer(q, src, CL_TRUE, 0, bytes, dst, 0, nullptr, nullptr), "clEnqueueReadBuffer", where);
  }
  static void copy(cl_mem dst, cl_mem src, std::size_t bytes, native_stream q, const char* where) {
    if (bytes == 0) return;
    q = queue_of(runtime::get(where), q);
    order(q, where);
    check(clEnqueueCopyBuffer(q, src, dst, 0, 0, bytes, 0, nullptr, nullptr), "clEnqueueCopyBuffer", where);
  }
  static void synchronize(native_stream q, const char* where) { opencl::synchronize(q, where); }
};

CROKTILE_DEVICE_API(backend)

// croktile's OpenCL objects, for host code that makes its own buffers and queues.
inline cl_context context() { return runtime::get("croktile::opencl::context").context; }
inline cl_device_id device() { return runtime::get("croktile::opencl::device").device; }
inline cl_command_queue queue() { return runtime::get("croktile::opencl::queue").queue; }
// Releases the device memory kept for reuse (of every queue).
inline void trim_pool() { detail::memory_pool::get().trim(nullptr); }

}  // namespace opencl
}  // namespace croktile

#ifndef CROKTILE_DEVICE_DEFAULT_API
#define CROKTILE_DEVICE_DEFAULT_API opencl
namespace croktile {
CROKTILE_DEVICE_API(opencl::backend)
}
#endif
