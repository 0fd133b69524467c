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
//                                  platform with a device of the requested type)
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
#include <mutex>
#include <string>
#include <vector>

#include "croktile.h"
#include "croktile_check.h"

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
    for (cl_platform_id p : candidates) {
      std::vector<cl_device_id> devs = devices_of(p, type, &last);
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
    // croktilec checks the program with this standard at build time (toolchains/opencl_check.py)
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

// A device buffer; released when it goes out of scope, on every path.
class buffer {
 public:
  // init == nullptr: zero-filled (unless zero == false: left undefined).
  buffer(runtime& rt, std::size_t bytes, const void* init, const char* where, bool zero = true)
      : bytes_(bytes) {
    // Some implementations (PoCL) allocate lazily and accept any size here.
    if (rt.max_alloc != 0 && bytes > rt.max_alloc)
      fail(where, "clCreateBuffer", CL_INVALID_BUFFER_SIZE,
           " (" + std::to_string(bytes) + " bytes; device '" + rt.device_name + "' allocates at most " +
               std::to_string(rt.max_alloc) + ")");
    cl_int err = CL_SUCCESS;
    mem_ = clCreateBuffer(rt.context, CL_MEM_READ_WRITE, bytes ? bytes : 1, nullptr, &err);
    check(err, "clCreateBuffer", where);
    if (bytes == 0) return;
    if (init != nullptr) {
      check(clEnqueueWriteBuffer(rt.queue, mem_, CL_TRUE, 0, bytes, init, 0, nullptr, nullptr),
            "clEnqueueWriteBuffer", where);
    } else if (zero) {
      const cl_uchar pattern = 0;
      check(clEnqueueFillBuffer(rt.queue, mem_, &pattern, 1, 0, bytes, 0, nullptr, nullptr),
            "clEnqueueFillBuffer", where);
    }
  }
  ~buffer() {
    if (mem_ != nullptr) clReleaseMemObject(mem_);
  }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;

  cl_mem get() const { return mem_; }
  std::size_t bytes() const { return bytes_; }

  void read(runtime& rt, void* dst, std::size_t bytes, const char* where) const {
    if (bytes == 0) return;
    check(clEnqueueReadBuffer(rt.queue, mem_, CL_TRUE, 0, bytes, dst, 0, nullptr, nullptr),
          "clEnqueueReadBuffer", where);
  }

 private:
  cl_mem mem_ = nullptr;
  std::size_t bytes_;
};

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

  void arg(cl_uint index, const buffer& b, const char* where) {
    cl_mem m = b.get();
    set(index, sizeof m, &m, where);
  }
  template <typename T>
  void value(cl_uint index, T v, const char* where) {
    set(index, sizeof v, &v, where);
  }
  void local(cl_uint index, std::size_t bytes, const char* where) {
    set(index, bytes ? bytes : 1, nullptr, where);
  }

  // `groups` work-groups of `group_size` work-items (fewer if the device allows
  // fewer for this kernel: generated kernels loop over the inner instances);
  // waits until they finish so that an execution error is reported here.
  void launch(runtime& rt, long long groups, long long group_size, const char* where) {
    if (groups <= 0) return;
    if (group_size <= 0) group_size = 1;
    if (group_size > 1) {
      std::size_t most = 0;
      cl_int err = clGetKernelWorkGroupInfo(kernel_, rt.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most,
                                            nullptr);
      if (err != CL_SUCCESS) fail(where, "clGetKernelWorkGroupInfo", err, " (kernel '" + name_ + "')");
      if (most > 0 && static_cast<std::size_t>(group_size) > most) group_size = static_cast<long long>(most);
    }
    const std::size_t local = static_cast<std::size_t>(group_size);
    const std::size_t global = static_cast<std::size_t>(groups) * local;
    cl_int err = clEnqueueNDRangeKernel(rt.queue, kernel_, 1, nullptr, &global, &local, 0, nullptr, nullptr);
    if (err != CL_SUCCESS)
      fail(where, "clEnqueueNDRangeKernel", err,
           " (kernel '" + name_ + "', " + std::to_string(groups) + " work-groups of " +
               std::to_string(group_size) + " work-items)");
    check(clFinish(rt.queue), "clFinish", where);
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

// A failed runtime check in device code records (check id + 1, values) here;
// the first failure wins. The host polls it after each launch.
class device_checks {
 public:
  static constexpr int max_values = 4;
  device_checks(runtime& rt, const char* where) : buf_(rt, sizeof(cl_int) * (2 + 2 * max_values), nullptr, where) {}

  const buffer& get() const { return buf_; }

  void poll(runtime& rt, const char* where, void (*report)(int, const long long*)) const {
    cl_int h[2 + 2 * max_values] = {};
    buf_.read(rt, h, sizeof h, where);
    if (h[0] == 0) return;
    long long values[max_values];
    std::memcpy(values, h + 2, sizeof values);
    report(h[0] - 1, values);
  }

 private:
  buffer buf_;
};

// Host-level dma.copy between two device buffers: the box `ext` at `src_off` of a
// row-major array shaped `src_shape` goes to `dst_off` of one shaped `dst_shape`,
// one clEnqueueCopyBufferRect per 2-d slab.
template <std::size_t Rank>
void copy_box(runtime& rt, const buffer& src, const long long (&src_shape)[Rank], const long long (&src_off)[Rank],
              const buffer& dst, const long long (&dst_shape)[Rank], const long long (&dst_off)[Rank],
              const long long (&ext)[Rank], std::size_t elem, const char* where) {
  long long total = 1;
  for (std::size_t d = 0; d < Rank; ++d) total *= ext[d];
  if (total <= 0) return;
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
    check(clEnqueueCopyBufferRect(rt.queue, src.get(), dst.get(), src_origin, dst_origin, region, src_row,
                                  src_slab, dst_row, dst_slab, 0, nullptr, nullptr),
          "clEnqueueCopyBufferRect", where);
    std::size_t d = outer;
    for (;;) {
      if (d == 0) {
        check(clFinish(rt.queue), "clFinish", where);
        return;
      }
      --d;
      if (++idx[d] < ext[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace opencl
}  // namespace croktile
