// croktile_dlpack.h - tensors of other frameworks (PyTorch, CuPy, JAX, NumPy...)
// as croktile views, and croktile data as DLPack tensors, without copies.
//
// Include it after a target's runtime header (croktile_cpu.h, croktile_factor.h,
// croktile_cuda.h, croktile_opencl.h); in a .co.cpp file the generated code
// includes that one first. The DLPack types come from <dlpack/dlpack.h> when it is
// on the include path (or was included before, e.g. by a framework's headers);
// otherwise this header declares the same ABI itself. Include framework headers
// before this one: declared here, the types clash with a dlpack.h included later.
//
// In (a framework's tensor -> a croktile view of the same memory):
//
//   croktile::dlpack::to_view<float, 2>(dltensor)       -> croktile::device_view<float, 2>
//       for the device form of a __co__ function. The tensor must be in the target's
//       device memory: kDLCPU (kDLCUDAHost, kDLCUDAManaged) on cpu and factor; kDLCUDA
//       (kDLCUDAManaged, kDLCUDAHost) on cuda, a kDLCUDA one of any device (a call
//       runs on the device that holds its arrays);
//       kDLOpenCL on opencl (data is the cl_mem, which must be of croktile's context).
//       The view uses the backend of the first target header included; name another
//       as to_view<float, 2, croktile::opencl::backend>(t).
//   croktile::dlpack::to_host_view<float, 2>(dltensor)  -> croktile::spanned_view<float, 2>
//       for the host form, on every target: kDLCPU (kDLCUDAHost, kDLCUDAManaged) memory.
//
//   Both take a DLTensor, a DLManagedTensor or a DLManagedTensorVersioned (DLPack 1.x:
//   its major version must be 1; its read-only flag is not checked: croktile writes
//   only to the parameters a __co__ function writes to), which stay the caller's.
//   Both check ndim equal to the rank, dtype equal to T (lanes 1), a non-negative shape, compact
//   row-major strides (NULL strides are compact; the strides of size-1 dimensions and
//   of empty tensors are ignored), non-null data unless the tensor is empty, the
//   device type; byte_offset is added to the pointer (the result must be aligned for
//   T) and must be 0 for a cl_mem. Anything else throws croktile::runtime_error
//   saying what was expected and what the tensor has, e.g.
//   "croktile::dlpack::to_view: dtype float32 expected, got int64".
//
// Out (croktile memory -> a DLPack tensor):
//
//   croktile::dlpack::from_view(view_or_data)     -> croktile::dlpack::borrowed_tensor<Rank>
//       a DLTensor (get(), or the implicit conversion) with its own shape and strides
//       storage, describing a device_view, device_data, spanned_view or spanned_data
//       that stays the caller's and must outlive every use of the DLTensor.
//   croktile::dlpack::to_managed(std::move(data)) -> DLManagedTensor*
//       hands a device_data or spanned_data over: its deleter frees the memory (a
//       device_data on the stream it was made on, stream-ordered), e.g. once the tensor
//       that torch.utils.dlpack.from_dlpack made of it (in a "dltensor" capsule) dies.
//       Whoever takes it calls the deleter exactly once; croktile::dlpack::managed_ptr
//       (a unique_ptr) does that for C++ code that keeps one.
//   croktile::dlpack::to_managed_versioned(std::move(data)) -> DLManagedTensorVersioned*
//       the same as a DLPack 1.x tensor ("dltensor_versioned" capsules, which NumPy
//       needs for a writable array), flags 0; versioned_managed_ptr releases one.
//       With a dlpack.h older than 1.0 the versioned functions do not exist
//       (CROKTILE_DLPACK_VERSIONED is 0).
//
//   A DLTensor that from_view or to_managed made says where the memory is: kDLCPU on
//   cpu and factor (and for host data), kDLOpenCL device 0 on opencl, and on cuda what
//   the driver says of the pointer (kDLCUDA and its device, kDLCUDAManaged, kDLCUDAHost).
//   Its strides are never NULL and its byte_offset is 0.
//
//   croktile::dlpack::dtype_of<T>() is the DLDataType of a croktile element type:
//   int8..int64 (kDLInt), uint8..uint64 (kDLUInt), float, double, croktile::f16
//   (kDLFloat), croktile::bf16 (kDLBfloat 16), bool (kDLBool 8).
#pragma once
#ifndef CROKTILE_DLPACK_H
#define CROKTILE_DLPACK_H

#ifndef CROKTILE_DEVICE_DEFAULT_API
#error \
    "croktile_dlpack.h: include a target's runtime header first (croktile_cpu.h, croktile_factor.h, croktile_cuda.h or croktile_opencl.h)"
#endif

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "croktile.h"
#include "croktile_device.h"

// The official header when it is there; DLPACK_DLPACK_H_ is its include guard,
// DLPACK_VERSION (before 1.0) and DLPACK_MAJOR_VERSION (1.0 on) its version.
#if !(defined(DLPACK_DLPACK_H_) || defined(DLPACK_VERSION) || defined(DLPACK_MAJOR_VERSION))
#if __has_include(<dlpack/dlpack.h>)
#include <dlpack/dlpack.h>
#endif
#endif

#if defined(DLPACK_VERSION) && !defined(DLPACK_MAJOR_VERSION) && DLPACK_VERSION < 60
#error "croktile_dlpack.h: DLPack 0.6 or newer is needed (kDLCUDA, DLDevice)"
#endif

#if !(defined(DLPACK_DLPACK_H_) || defined(DLPACK_VERSION) || defined(DLPACK_MAJOR_VERSION))
// The DLPack ABI (https://dmlc.github.io/dlpack/latest/c_api.html), declared here
// because no dlpack.h was found; layout and names are the specification's.
#define CROKTILE_DLPACK_DECLARED_HERE 1
extern "C" {
typedef enum : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
  kDLMAIA = 17,
} DLDeviceType;

typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U,
  kDLBool = 6U,
} DLDataTypeCode;

typedef struct {
  uint8_t code;    // a DLDataTypeCode
  uint8_t bits;    // of one lane
  uint16_t lanes;  // 1 for scalars
} DLDataType;

typedef struct {
  void* data;            // a device pointer, or a cl_mem on OpenCL
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;        // ndim values
  int64_t* strides;      // in elements; NULL: compact row-major
  uint64_t byte_offset;  // from data to the first element
} DLTensor;

typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);  // frees manager_ctx and self
} DLManagedTensor;

// DLPack 1.0 on: a managed tensor that says its ABI version and flags.
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)

struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};
}  // extern "C"
#endif

// DLManagedTensorVersioned: in a dlpack.h from 1.0 on, and in the declarations above.
#if defined(DLPACK_MAJOR_VERSION) || defined(CROKTILE_DLPACK_DECLARED_HERE)
#define CROKTILE_DLPACK_VERSIONED 1
#else
#define CROKTILE_DLPACK_VERSIONED 0
#endif

namespace croktile {
namespace dlpack {

// The backend of croktile::device_view: that of the first target header included.
using default_backend = ::croktile::CROKTILE_DEVICE_DEFAULT_API::backend;

namespace detail {

// Device types and type codes as numbers, so that any dlpack.h from 0.6 on will do.
constexpr int device_cpu = 1, device_cuda = 2, device_cuda_host = 3, device_opencl = 4, device_cuda_managed = 13;
constexpr std::uint8_t code_int = 0, code_uint = 1, code_float = 2, code_bfloat = 4, code_bool = 6;
// DLPack 1.1's 8-bit floats: e4m3 without infinities (PyTorch's float8_e4m3fn), e5m2
constexpr std::uint8_t code_float8_e4m3fn = 10, code_float8_e5m2 = 12;

template <typename T>
struct unsupported_element : std::false_type {};

constexpr DLDataType make_dtype(std::uint8_t code, std::size_t bytes) {
  return DLDataType{code, static_cast<std::uint8_t>(8 * bytes), 1};
}

inline std::string device_type_name(int type) {
  switch (type) {
    case 1: return "kDLCPU";
    case 2: return "kDLCUDA";
    case 3: return "kDLCUDAHost";
    case 4: return "kDLOpenCL";
    case 7: return "kDLVulkan";
    case 8: return "kDLMetal";
    case 9: return "kDLVPI";
    case 10: return "kDLROCM";
    case 11: return "kDLROCMHost";
    case 12: return "kDLExtDev";
    case 13: return "kDLCUDAManaged";
    case 14: return "kDLOneAPI";
    case 15: return "kDLWebGPU";
    case 16: return "kDLHexagon";
    case 17: return "kDLMAIA";
    default: return "device type " + std::to_string(type);
  }
}

// The device types whose memory a backend's views (or host views) can use, and how
// an error names them.
struct accepted_devices {
  int types[3];
  const char* what;  // the kind of memory, for the message
};

inline accepted_devices host_devices() {
  return {{device_cpu, device_cuda_host, device_cuda_managed}, "host memory"};
}

template <typename B>
accepted_devices devices_of() {
  if constexpr (B::dlpack_device_type == device_cpu)
    return {{device_cpu, device_cuda_host, device_cuda_managed}, "host memory, as on the cpu and factor targets"};
  else if constexpr (B::dlpack_device_type == device_cuda)
    return {{device_cuda, device_cuda_managed, device_cuda_host}, "memory the cuda target's kernels can use"};
  else if constexpr (B::dlpack_device_type == device_opencl)
    return {{device_opencl, device_opencl, device_opencl}, "a cl_mem of the opencl target's context"};
  else
    return {{B::dlpack_device_type, B::dlpack_device_type, B::dlpack_device_type}, "this target's device memory"};
}

inline std::string names_of(const accepted_devices& ok) {
  std::string s = device_type_name(ok.types[0]);
  if (ok.types[1] != ok.types[0]) s += ", " + device_type_name(ok.types[1]) + " or " + device_type_name(ok.types[2]);
  return s;
}

inline void check_device(const DLTensor& t, const accepted_devices& ok, const char* who) {
  const int type = static_cast<int>(t.device.device_type);
  for (int accepted : ok.types)
    if (type == accepted) return;
  throw runtime_error(std::string(who) + ": device " + names_of(ok) + " expected (" + ok.what + "), got " +
                      device_type_name(type) + " (device " + std::to_string(t.device.device_id) + ")");
}

}  // namespace detail

// The DLDataType of a croktile element type.
template <typename T>
constexpr DLDataType dtype_of() {
  using E = typename std::remove_cv<T>::type;
  if constexpr (std::is_same<E, bool>::value)
    return detail::make_dtype(detail::code_bool, 1);
  else if constexpr (std::is_same<E, f16>::value)
    return detail::make_dtype(detail::code_float, 2);
  else if constexpr (std::is_same<E, bf16>::value)
    return detail::make_dtype(detail::code_bfloat, 2);
  else if constexpr (std::is_same<E, f8_e4m3>::value)
    return detail::make_dtype(detail::code_float8_e4m3fn, 1);
  else if constexpr (std::is_same<E, f8_e5m2>::value)
    return detail::make_dtype(detail::code_float8_e5m2, 1);
  else if constexpr (std::is_same<E, float>::value || std::is_same<E, double>::value)
    return detail::make_dtype(detail::code_float, sizeof(E));
  else if constexpr (std::is_integral<E>::value && sizeof(E) <= 8)
    return detail::make_dtype(std::is_signed<E>::value ? detail::code_int : detail::code_uint, sizeof(E));
  else
    static_assert(detail::unsupported_element<E>::value,
                  "croktile::dlpack: no DLPack dtype for this element type (use an integer type of 8 to 64 bits, "
                  "float, double, croktile::f16, croktile::bf16, croktile::f8_e4m3, croktile::f8_e5m2 or bool)");
}

// How a DLDataType is written in messages: float32, int64, bfloat16, bool, float32x4.
inline std::string dtype_name(DLDataType d) {
  std::string s;
  switch (d.code) {
    case 0: s = "int" + std::to_string(d.bits); break;
    case 1: s = "uint" + std::to_string(d.bits); break;
    case 2: s = "float" + std::to_string(d.bits); break;
    case 3: s = "handle" + std::to_string(d.bits); break;
    case 4: s = "bfloat" + std::to_string(d.bits); break;
    case 5: s = "complex" + std::to_string(d.bits); break;
    case 6: s = d.bits == 8 ? std::string("bool") : "bool" + std::to_string(d.bits); break;
    case 10: s = "float8_e4m3fn"; break;
    case 12: s = "float8_e5m2"; break;
    default: s = "type code " + std::to_string(d.code) + " of " + std::to_string(d.bits) + " bits"; break;
  }
  if (d.lanes != 1) s += "x" + std::to_string(d.lanes);
  return s;
}

// ---------------------------------------------------------------------------
// The checks of to_view and to_host_view
// ---------------------------------------------------------------------------
namespace detail {

inline void check_dtype(const DLTensor& t, DLDataType want, const char* who) {
  const DLDataType got = t.dtype;
  if (got.code == want.code && got.bits == want.bits && got.lanes == 1) return;
  throw runtime_error(std::string(who) + ": dtype " + dtype_name(want) + " expected, got " + dtype_name(got) +
                      (got.lanes != 1 ? " (vector types, lanes other than 1, are not supported)" : ""));
}

template <std::size_t Rank>
std::string dims_text(const std::int64_t* dims) {
  std::string s = "[";
  for (std::size_t d = 0; d < Rank; ++d) s += (d ? ", " : "") + std::to_string(dims[d]);
  return s + "]";
}

// Strides in elements, compact row-major: what croktile views are. A size-1
// dimension's stride never matters, and frameworks set it to anything.
template <std::size_t Rank>
void check_row_major(const DLTensor& t, const std::array<std::size_t, Rank>& shape, const char* who) {
  if (t.strides == nullptr) return;
  std::int64_t want[Rank];
  std::int64_t step = 1;
  bool compact = true;
  for (std::size_t d = Rank; d-- > 0;) {
    want[d] = step;
    if (shape[d] != 1 && t.strides[d] != step) compact = false;
    step *= static_cast<std::int64_t>(shape[d]);
  }
  if (!compact)
    throw runtime_error(std::string(who) + ": compact row-major strides " + dims_text<Rank>(want) +
                        " expected for shape " + dims_text<Rank>(t.shape) + ", got " + dims_text<Rank>(t.strides) +
                        "; make the tensor contiguous first (e.g. .contiguous() in PyTorch)");
}

// The shape of a tensor of rank Rank and element type T, checked.
template <typename T, std::size_t Rank>
std::array<std::size_t, Rank> checked_shape(const DLTensor& t, const char* who) {
  if (t.ndim != static_cast<std::int32_t>(Rank))
    throw runtime_error(std::string(who) + ": ndim " + std::to_string(Rank) + " expected, got " +
                        std::to_string(t.ndim));
  check_dtype(t, dtype_of<T>(), who);
  if (t.shape == nullptr) throw runtime_error(std::string(who) + ": the tensor's shape is NULL");
  std::array<std::size_t, Rank> shape{};
  for (std::size_t d = 0; d < Rank; ++d) {
    if (t.shape[d] < 0)
      throw runtime_error(std::string(who) + ": dimension " + std::to_string(d) + " of the tensor's shape " +
                          dims_text<Rank>(t.shape) + " is negative");
    shape[d] = static_cast<std::size_t>(t.shape[d]);
  }
  const std::size_t limit = static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max()) / sizeof(T);
  std::size_t count = 1;
  for (std::size_t d : shape) {
    if (d != 0 && count > limit / d)
      throw runtime_error(std::string(who) + ": the tensor's shape " + dims_text<Rank>(t.shape) +
                          " is too large: its size in bytes does not fit in 63 bits");
    count *= d;
  }
  if (count == 0) return shape;  // an empty tensor: its data and strides do not matter
  if (t.data == nullptr)
    throw runtime_error(std::string(who) + ": the tensor's data is NULL, but its shape " + dims_text<Rank>(t.shape) +
                        " has " + std::to_string(count) + " elements");
  check_row_major(t, shape, who);
  return shape;
}

// data + byte_offset as a T*, checked to be aligned for T.
template <typename T>
T* element_start(const DLTensor& t, const char* who) {
  if (t.data == nullptr) return nullptr;  // an empty tensor
  char* p = static_cast<char*>(t.data) + t.byte_offset;
  if (reinterpret_cast<std::uintptr_t>(p) % alignof(T) != 0)
    throw runtime_error(std::string(who) + ": the first element (data + byte_offset " + std::to_string(t.byte_offset) +
                        ") is not aligned to " + std::to_string(alignof(T)) + " bytes, the alignment of " +
                        dtype_name(dtype_of<T>()));
  return reinterpret_cast<T*>(p);
}

// Fills a DLTensor describing compact row-major memory; shape and strides point to
// the given storage.
template <std::size_t Rank>
void describe(DLTensor& t, std::int64_t (&shape)[Rank], std::int64_t (&strides)[Rank], void* data, DLDevice device,
              DLDataType dtype, const std::array<std::size_t, Rank>& dims) {
  std::int64_t step = 1;
  for (std::size_t d = Rank; d-- > 0;) {
    shape[d] = static_cast<std::int64_t>(dims[d]);
    strides[d] = step;
    step *= shape[d];
  }
  t.data = data;
  t.device = device;
  t.ndim = static_cast<std::int32_t>(Rank);
  t.dtype = dtype;
  t.shape = shape;
  t.strides = strides;
  t.byte_offset = 0;
}

// The DLPack device of memory of backend B at p (cuda: where the backend knows it is).
template <typename B>
DLDevice device_of(const void* p) {
  DLDevice dev{static_cast<DLDeviceType>(B::dlpack_device_type), 0};
  if constexpr (B::dlpack_device_type == device_cuda) {
    int id = 0;
    dev.device_type = static_cast<DLDeviceType>(B::dlpack_device_of(p, id));
    dev.device_id = id;
  }
  (void)p;
  return dev;
}

// cuda: a kDLCUDA tensor's device must exist; the call then runs on it (its device guard),
// which the tensor's word spares a query of the pointer.
template <typename B>
void check_cuda_device(const DLTensor& t, const void* start, const char* who) {
  if constexpr (B::dlpack_device_type == device_cuda) {
    if (static_cast<int>(t.device.device_type) == device_cuda) B::accept_device(start, t.device.device_id, who);
  }
  (void)t;
  (void)start;
  (void)who;
}

// The address (or cl_mem handle) a DLTensor's data holds.
template <typename P>
void* untyped(P p) {
  if constexpr (std::is_pointer<P>::value)
    return const_cast<void*>(static_cast<const void*>(p));
  else
    return static_cast<void*>(p);  // cl_mem
}

}  // namespace detail

// A view of a DLTensor's memory for the device form of a __co__ function (no copy).
template <typename T, std::size_t Rank, typename B = default_backend>
basic_device_view<T, Rank, B> to_view(const DLTensor& t) {
  static constexpr const char* who = "croktile::dlpack::to_view";
  using pointer = typename B::template device_pointer<T>;
  detail::check_device(t, detail::devices_of<B>(), who);
  const auto shape = detail::checked_shape<T, Rank>(t, who);
  if constexpr (B::typed_pointers) {
    T* start = detail::element_start<T>(t, who);
    detail::check_cuda_device<B>(t, start, who);
    return basic_device_view<T, Rank, B>(pointer(start), shape);
  } else {
    // An untyped handle (cl_mem) cannot be offset.
    if (t.byte_offset != 0)
      throw runtime_error(std::string(who) + ": byte_offset 0 expected (a " +
                          detail::device_type_name(t.device.device_type) +
                          " tensor's data is a buffer handle, which cannot be offset), got " +
                          std::to_string(t.byte_offset));
    return basic_device_view<T, Rank, B>(static_cast<pointer>(t.data), shape);
  }
}

template <typename T, std::size_t Rank, typename B = default_backend>
basic_device_view<T, Rank, B> to_view(const DLManagedTensor& m) {
  return to_view<T, Rank, B>(m.dl_tensor);
}

// A view of a DLTensor in host memory for the host form of a __co__ function (no copy).
template <typename T, std::size_t Rank>
spanned_view<T, Rank> to_host_view(const DLTensor& t) {
  static constexpr const char* who = "croktile::dlpack::to_host_view";
  detail::check_device(t, detail::host_devices(), who);
  const auto shape = detail::checked_shape<T, Rank>(t, who);
  return spanned_view<T, Rank>(detail::element_start<T>(t, who), shape);
}

template <typename T, std::size_t Rank>
spanned_view<T, Rank> to_host_view(const DLManagedTensor& m) {
  return to_host_view<T, Rank>(m.dl_tensor);
}

#if CROKTILE_DLPACK_VERSIONED
namespace detail {
// The tensor of a versioned managed tensor whose ABI this header knows (major version 1).
inline const DLTensor& tensor_of(const DLManagedTensorVersioned& m, const char* who) {
  if (m.version.major != 1)
    throw runtime_error(std::string(who) + ": DLPack version 1.x expected, got " + std::to_string(m.version.major) +
                        "." + std::to_string(m.version.minor));
  return m.dl_tensor;
}
}  // namespace detail

template <typename T, std::size_t Rank, typename B = default_backend>
basic_device_view<T, Rank, B> to_view(const DLManagedTensorVersioned& m) {
  return to_view<T, Rank, B>(detail::tensor_of(m, "croktile::dlpack::to_view"));
}

template <typename T, std::size_t Rank>
spanned_view<T, Rank> to_host_view(const DLManagedTensorVersioned& m) {
  return to_host_view<T, Rank>(detail::tensor_of(m, "croktile::dlpack::to_host_view"));
}
#endif

// A DLTensor describing memory that someone else owns (a croktile view or data),
// with its own storage for the shape and compact row-major strides. Copies describe
// the same memory.
template <std::size_t Rank>
class borrowed_tensor {
 public:
  borrowed_tensor(void* data, DLDevice device, DLDataType dtype, const std::array<std::size_t, Rank>& shape) {
    detail::describe(tensor_, shape_, strides_, data, device, dtype, shape);
  }
  borrowed_tensor(const borrowed_tensor& o) : tensor_(o.tensor_) { copy_dims(o); }
  borrowed_tensor& operator=(const borrowed_tensor& o) {
    tensor_ = o.tensor_;
    copy_dims(o);
    return *this;
  }

  DLTensor& get() { return tensor_; }
  const DLTensor& get() const { return tensor_; }
  operator DLTensor&() { return tensor_; }              // NOLINT: pass where a DLTensor is taken
  operator const DLTensor&() const { return tensor_; }  // NOLINT

 private:
  void copy_dims(const borrowed_tensor& o) {
    for (std::size_t d = 0; d < Rank; ++d) {
      shape_[d] = o.shape_[d];
      strides_[d] = o.strides_[d];
    }
    tensor_.shape = shape_;
    tensor_.strides = strides_;
  }

  DLTensor tensor_;
  std::int64_t shape_[Rank];
  std::int64_t strides_[Rank];
};

// A DLTensor of the memory of a view or data (no copy; it stays the caller's).
template <typename T, std::size_t Rank, typename B>
borrowed_tensor<Rank> from_view(const basic_device_view<T, Rank, B>& v) {
  void* data = detail::untyped(v.data());
  return borrowed_tensor<Rank>(data, detail::device_of<B>(data), dtype_of<T>(), v.shape());
}
template <typename T, std::size_t Rank, typename B>
borrowed_tensor<Rank> from_view(const basic_device_data<T, Rank, B>& d) {
  return from_view(d.view());
}
template <typename T, std::size_t Rank>
borrowed_tensor<Rank> from_view(spanned_view<T, Rank> v) {
  const DLDevice host{static_cast<DLDeviceType>(detail::device_cpu), 0};
  return borrowed_tensor<Rank>(const_cast<void*>(static_cast<const void*>(v.data())), host, dtype_of<T>(), v.shape());
}
template <typename T, std::size_t Rank>
borrowed_tensor<Rank> from_view(const spanned_data<T, Rank>& d) {
  return from_view(d.view());
}
// A temporary would be freed before the DLTensor is used: hand it over with to_managed.
template <typename T, std::size_t Rank, typename B>
borrowed_tensor<Rank> from_view(basic_device_data<T, Rank, B>&&) = delete;
template <typename T, std::size_t Rank>
borrowed_tensor<Rank> from_view(spanned_data<T, Rank>&&) = delete;

namespace detail {

// What a managed tensor of to_managed points to: the data it owns and the storage
// of its shape and strides; the deleter deletes it. M is DLManagedTensor or
// DLManagedTensorVersioned.
template <typename M, typename Owner, std::size_t Rank>
struct managed_holder {
  M managed;
  Owner owner;
  std::int64_t shape[Rank];
  std::int64_t strides[Rank];

  static void deleter(M* self) { delete static_cast<managed_holder*>(self->manager_ctx); }
};

inline void set_version(DLManagedTensor&) {}
#if CROKTILE_DLPACK_VERSIONED
// The version of the ABI declared (1.0 where this header declares it), writable.
inline void set_version(DLManagedTensorVersioned& m) {
#if defined(DLPACK_MAJOR_VERSION)
  m.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
#else
  m.version = DLPackVersion{1, 0};
#endif
  m.flags = 0;
}
#endif

template <typename M, typename Owner>
M* hand_over(Owner&& owner, void* data, DLDevice device, DLDataType dtype) {
  using holder = managed_holder<M, Owner, Owner::rank()>;
  auto* h = new holder{M{}, std::move(owner), {}, {}};
  describe(h->managed.dl_tensor, h->shape, h->strides, data, device, dtype, h->owner.shape());
  set_version(h->managed);
  h->managed.manager_ctx = h;
  h->managed.deleter = &holder::deleter;
  return &h->managed;
}

template <typename M, typename T, std::size_t Rank, typename B>
M* hand_over(basic_device_data<T, Rank, B>&& d) {
  void* data = untyped(d.data());
  const DLDevice device = device_of<B>(data);
  return hand_over<M>(std::move(d), data, device, dtype_of<T>());
}

template <typename M, typename T, std::size_t Rank>
M* hand_over(spanned_data<T, Rank>&& d) {
  void* data = d.data();
  return hand_over<M>(std::move(d), data, DLDevice{static_cast<DLDeviceType>(device_cpu), 0}, dtype_of<T>());
}

}  // namespace detail

// Hands device data over to a DLPack consumer: the deleter frees it, stream-ordered
// on the stream it was made on (the consumer's work on it must be done or ordered
// before that, as for any DLPack tensor).
template <typename T, std::size_t Rank, typename B>
DLManagedTensor* to_managed(basic_device_data<T, Rank, B>&& d) {
  return detail::hand_over<DLManagedTensor>(std::move(d));
}

// Hands host data (the result of a host form) over to a DLPack consumer (kDLCPU).
template <typename T, std::size_t Rank>
DLManagedTensor* to_managed(spanned_data<T, Rank>&& d) {
  return detail::hand_over<DLManagedTensor>(std::move(d));
}

#if CROKTILE_DLPACK_VERSIONED
// The same as a DLPack 1.x managed tensor (a "dltensor_versioned" capsule's), writable.
template <typename T, std::size_t Rank, typename B>
DLManagedTensorVersioned* to_managed_versioned(basic_device_data<T, Rank, B>&& d) {
  return detail::hand_over<DLManagedTensorVersioned>(std::move(d));
}
template <typename T, std::size_t Rank>
DLManagedTensorVersioned* to_managed_versioned(spanned_data<T, Rank>&& d) {
  return detail::hand_over<DLManagedTensorVersioned>(std::move(d));
}
#endif

// Calls a managed tensor's deleter (if it has one) when it goes out of scope.
struct managed_deleter {
  template <typename M>
  void operator()(M* m) const noexcept {
    if (m && m->deleter) m->deleter(m);
  }
};
using managed_ptr = std::unique_ptr<DLManagedTensor, managed_deleter>;
#if CROKTILE_DLPACK_VERSIONED
using versioned_managed_ptr = std::unique_ptr<DLManagedTensorVersioned, managed_deleter>;
#endif

}  // namespace dlpack
}  // namespace croktile

#endif  // CROKTILE_DLPACK_H
