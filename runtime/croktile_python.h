// croktile_python.h - what the generated nanobind bindings of a module share
// (croktilec --python-module / --emit-python-bindings; croktile.load in Python).
//
// Include it after the target's runtime header and croktile_dlpack.h, with
// <nanobind/nanobind.h> and <nanobind/ndarray.h>. Per argument it turns any object
// that speaks DLPack or the buffer protocol (NumPy, PyTorch, CuPy, JAX) into a
// croktile view of the same memory, without a copy, and names the parameter and
// its .co.cpp line when the array does not fit; results become NumPy arrays (host
// data) or objects with __dlpack__ (device data). Errors are raised as the Python
// class croktile.Error (croktile.ArgumentError for a bad argument), taken from the
// `croktile` package when it is installed, otherwise defined by the module.
#pragma once
#ifndef CROKTILE_PYTHON_H
#define CROKTILE_PYTHON_H

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "croktile.h"
#include "croktile_device.h"
#include "croktile_dlpack.h"

namespace croktile {
namespace python {

namespace nb = nanobind;

// The exception classes: croktile.Error (a RuntimeError) and croktile.ArgumentError
// (also a ValueError). Set once by the module's init.
struct error_classes {
  nb::object error, argument_error;
};
inline error_classes& errors() {
  static error_classes e;
  return e;
}

// Called by the module's init: the croktile package's classes, so that every
// croktile module raises the same ones; a module used without the package defines its own.
inline void init_errors(nb::module_& m) {
  error_classes& e = errors();
  try {
    nb::module_ pkg = nb::module_::import_("croktile._errors");
    e.error = pkg.attr("Error");
    e.argument_error = pkg.attr("ArgumentError");
  } catch (nb::python_error&) {
    nb::object builtins = nb::module_::import_("builtins");
    nb::object type = builtins.attr("type");
    e.error = type("Error", nb::make_tuple(builtins.attr("RuntimeError")), nb::dict());
    e.argument_error =
        type("ArgumentError", nb::make_tuple(e.error, builtins.attr("ValueError")), nb::dict());
    e.error.attr("__module__") = m.attr("__name__");
    e.argument_error.attr("__module__") = m.attr("__name__");
  }
  m.attr("Error") = e.error;
  m.attr("ArgumentError") = e.argument_error;
}

// Raises `cls(message)` as the pending Python error.
[[noreturn]] inline void raise(const nb::object& cls, const std::string& message) {
  PyErr_SetString(cls.ptr(), message.c_str());
  throw nb::python_error();
}

// Where a parameter is declared, for messages: "argument 'a' of 'add' (x.co.cpp:3:20)".
struct param_info {
  const char* function;
  const char* name;
  const char* where;     // file:line:col of the parameter
  const char* declared;  // its type as written, e.g. "s32 [M, N]"
};

inline std::string named(const param_info& p) {
  return std::string(p.where) + ": argument '" + p.name + "' of '" + p.function + "' (" + p.declared + ")";
}

inline std::string python_type_name(nb::handle h) {
  return nb::borrow<nb::str>(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(h.ptr()))).attr("__name__")).c_str();
}

// DLPack's C exchange API (DLPack 1.3; PyTorch from 2.10): a table of C functions that
// a framework's tensor type carries (`__dlpack_c_exchange_api__`, a capsule named
// "dlpack_exchange_api"; `__c_dlpack_exchange_api__` before, also an int), through which
// a call reads a tensor's DLTensor and the framework's current stream without running
// Python code. Declared here with the specification's layout, so that any dlpack.h will do.
struct exchange_api {
  std::uint32_t major, minor;  // DLPackExchangeAPIHeader: version, then prev_api
  const void* prev_api;
  void* managed_tensor_allocator;
  void* managed_tensor_from_py_object_no_sync;
  void* managed_tensor_to_py_object_no_sync;
  int (*dltensor_from_py_object_no_sync)(void* py_object, DLTensor* out);  // may be NULL
  int (*current_work_stream)(DLDeviceType type, std::int32_t device_id, void** out);
};

// The exchange API of a Python type (nullptr if it has none), looked up once per type.
inline const exchange_api* exchange_api_of(PyTypeObject* type) {
  struct entry {
    PyTypeObject* type;
    const exchange_api* api;
  };
  static entry cache[8] = {};
  for (const entry& e : cache)
    if (e.type == type) return e.api;
  const exchange_api* api = nullptr;
  for (const char* name : {"__dlpack_c_exchange_api__", "__c_dlpack_exchange_api__"}) {
    PyObject* attr = PyObject_GetAttrString(reinterpret_cast<PyObject*>(type), name);
    if (attr == nullptr) {
      PyErr_Clear();
      continue;
    }
    void* ptr = nullptr;
    if (PyCapsule_CheckExact(attr))
      ptr = PyCapsule_GetPointer(attr, "dlpack_exchange_api");
    else if (PyLong_Check(attr))
      ptr = PyLong_AsVoidPtr(attr);
    if (PyErr_Occurred()) PyErr_Clear();
    Py_DECREF(attr);
    api = static_cast<const exchange_api*>(ptr);
    if (api != nullptr && (api->major != 1 || api->dltensor_from_py_object_no_sync == nullptr ||
                           api->current_work_stream == nullptr))
      api = nullptr;
    if (api != nullptr) break;
  }
  for (entry& e : cache)
    if (e.type == nullptr) {
      e = entry{type, api};
      break;
    }
  return api;
}

// One array argument of a call: the DLTensor of any object that speaks DLPack or the
// buffer protocol (NumPy, PyTorch, CuPy, JAX), of the same memory; through the exchange
// API where the object's type has it (the tensor's own shape and strides, valid while the
// object lives, as arguments do during the call), else as nanobind imports it.
class argument {
 public:
  argument(nb::handle h, const param_info& p) {
    api_ = exchange_api_of(Py_TYPE(h.ptr()));
    if (api_ != nullptr) {
      if (api_->dltensor_from_py_object_no_sync(h.ptr(), &t_) == 0) return;
      PyErr_Clear();  // e.g. a tensor DLPack cannot describe: nanobind's import says why
      api_ = nullptr;
    }
    if (!nb::try_cast<nb::ndarray<nb::ro>>(h, nd_, false))
      raise(errors().argument_error,
            named(p) + ": an array expected (an object with __dlpack__ or the buffer protocol: NumPy, PyTorch, "
                       "CuPy, JAX), got " + python_type_name(h));
    if (nd_.ndim() > max_rank)
      raise(errors().argument_error, named(p) + ": an array of rank at most " + std::to_string(max_rank) +
                                         " expected, got rank " + std::to_string(nd_.ndim()));
    t_.data = const_cast<void*>(nd_.data());  // nanobind's data already includes the offset
    t_.device = DLDevice{static_cast<DLDeviceType>(nd_.device_type()), nd_.device_id()};
    t_.ndim = static_cast<std::int32_t>(nd_.ndim());
    const nb::dlpack::dtype d = nd_.dtype();
    t_.dtype = DLDataType{d.code, d.bits, d.lanes};
    for (std::size_t i = 0; i < nd_.ndim(); ++i) {
      shape_[i] = nd_.shape(i);
      strides_[i] = nd_.stride(i);
    }
    t_.shape = shape_;
    t_.strides = strides_;
    t_.byte_offset = 0;
  }
  argument(const argument&) = delete;
  argument& operator=(const argument&) = delete;

  const DLTensor& tensor() const { return t_; }
  int device_type() const { return static_cast<int>(t_.device.device_type); }
  // The framework's current stream for this tensor's device, through the exchange API;
  // false where the type has none.
  bool work_stream(void*& out) const {
    if (api_ == nullptr) return false;
    if (api_->current_work_stream(t_.device.device_type, t_.device.device_id, &out) == 0) return true;
    PyErr_Clear();
    return false;
  }

 private:
  static constexpr std::size_t max_rank = 16;
  const exchange_api* api_ = nullptr;
  DLTensor t_{};
  nb::ndarray<nb::ro> nd_;
  std::int64_t shape_[max_rank] = {}, strides_[max_rank] = {};
};

// Rewords a check of croktile_dlpack.h ("croktile::dlpack::to_view: dtype float32
// expected, got int64") for the parameter it is about.
[[noreturn]] inline void argument_failed(const param_info& p, const std::exception& e) {
  std::string what = e.what();
  const std::size_t colon = what.find(": ");
  if (what.rfind("croktile::dlpack::", 0) == 0 && colon != std::string::npos) what = what.substr(colon + 2);
  raise(errors().argument_error, named(p) + ": " + what);
}

inline void check_rank(const argument& a, std::size_t rank, const param_info& p) {
  if (static_cast<std::size_t>(a.tensor().ndim) != rank)
    raise(errors().argument_error, named(p) + ": an array of rank " + std::to_string(rank) + " expected, got rank " +
                                       std::to_string(a.tensor().ndim));
}

// A host view (the host-array form) of an argument.
template <typename T, std::size_t Rank>
spanned_view<T, Rank> host_view(const argument& a, const param_info& p) {
  check_rank(a, Rank, p);
  try {
    return dlpack::to_host_view<T, Rank>(a.tensor());
  } catch (const std::exception& e) {
    argument_failed(p, e);
  }
}

// A device view (the device form) of an argument.
template <typename T, std::size_t Rank>
device_view<T, Rank> dev_view(const argument& a, const param_info& p) {
  check_rank(a, Rank, p);
  try {
    return dlpack::to_view<T, Rank>(a.tensor());
  } catch (const std::exception& e) {
    argument_failed(p, e);
  }
}

// Whether a call takes the device form: on a target whose device memory is not host
// memory, when its first array argument is in device memory (then every array must be).
inline bool device_call(const argument& first) {
  using backend = dlpack::default_backend;
  if constexpr (backend::dlpack_device_type == dlpack::detail::device_cpu) {
    (void)first;
    return false;
  } else {
    const int type = first.device_type();
    return !(type == dlpack::detail::device_cpu || type == dlpack::detail::device_cuda_host);
  }
}

// A stream object as its native handle: an int (cudaStream_t), or an object with
// .cuda_stream or .ptr (PyTorch's and CuPy's streams).
template <typename Native>
Native native_stream_of(nb::handle h) {
  auto from_int = [](nb::handle v) { return reinterpret_cast<Native>(nb::cast<std::uintptr_t>(v)); };
  if (PyLong_Check(h.ptr())) return from_int(h);
  if (nb::hasattr(h, "cuda_stream")) return from_int(h.attr("cuda_stream"));
  if (nb::hasattr(h, "ptr")) return from_int(h.attr("ptr"));
  raise(errors().argument_error, "stream: an int (cudaStream_t) or a stream object with .cuda_stream or .ptr "
                                 "expected, got " + python_type_name(h));
}

// PyTorch's current stream object (of `device`, or of the current device), if torch is
// imported and has initialised CUDA; else None.
inline nb::object torch_current_stream(int device = -1) {
  PyObject* modules = PySys_GetObject("modules");  // borrowed
  PyObject* torch = modules ? PyDict_GetItemString(modules, "torch") : nullptr;
  if (torch == nullptr) return nb::none();
  nb::handle cuda = nb::handle(torch).attr("cuda");
  if (!nb::cast<bool>(cuda.attr("is_initialized")())) return nb::none();
  return device < 0 ? cuda.attr("current_stream")() : cuda.attr("current_stream")(device);
}

// The stream a device-form call is queued on: `stream` if given; else the current
// stream, for the first array's device, of the framework that made it: through DLPack's
// exchange API where its type has one (PyTorch, no Python code run), else PyTorch's or
// CuPy's current stream when one of them is imported; else croktile's current stream
// (the legacy default stream on cuda).
inline stream current_stream(nb::handle given, const argument& first) {
  using native = stream::native_type;
  if constexpr (!std::is_pointer<native>::value) {
    (void)given;
    (void)first;
    return stream();
  } else {
    if (!given.is_none()) return stream(native_stream_of<native>(given));
    if constexpr (dlpack::default_backend::dlpack_device_type == dlpack::detail::device_cuda) {
      void* work = nullptr;
      if (first.work_stream(work)) return stream(static_cast<native>(work));
      nb::object torch_stream = torch_current_stream(first.tensor().device.device_id);
      if (!torch_stream.is_none()) return stream(native_stream_of<native>(torch_stream));
      PyObject* modules = PySys_GetObject("modules");  // borrowed
      if (PyObject* cupy = modules ? PyDict_GetItemString(modules, "cupy") : nullptr)
        return stream(native_stream_of<native>(nb::handle(cupy).attr("cuda").attr("get_current_stream")()));
    }
    return stream();
  }
}

// A host-array call copies through host memory and waits for its result: it cannot be
// recorded into a CUDA graph. Called before one on cuda: if the caller's current stream
// (given, or PyTorch's where it has initialised CUDA) is being captured, croktile.Error
// says so before anything is queued (a queued copy would end the capture with an error).
template <typename B = dlpack::default_backend>
void refuse_capture(const char* fn, nb::handle given) {
  if constexpr (B::dlpack_device_type == dlpack::detail::device_cuda) {
    using native = typename B::native_stream;
    nb::object s = given.is_none() ? torch_current_stream() : nb::borrow(given);
    if (!s.is_none() && B::capturing(native_stream_of<native>(s)))
      raise(errors().error, std::string("'") + fn + "' with host arrays cannot be captured into a CUDA graph (its "
                            "arguments and result are copied through host memory, and it waits for them): pass "
                            "arrays in device memory");
  } else {
    (void)fn;
    (void)given;
  }
}

// out= of a host-array call: the result copied into the caller's array, whose shape must be the result's.
template <typename T, std::size_t Rank>
void copy_into(spanned_view<T, Rank> out, const spanned_data<T, Rank>& result, const param_info& p) {
  try {
    detail::expect_result_shape(out, result.shape(), p.function, p.where);
  } catch (const runtime_error& e) {
    raise(errors().argument_error, e.what());
  }
  std::copy(result.data(), result.data() + result.element_count(), out.data());
}

// Runs a call of generated code without the GIL; its croktile::runtime_error (a failed
// runtime check, a CUDA or OpenCL error) becomes croktile.Error with the same text.
template <typename F>
auto run(F&& f) -> decltype(f()) {
  try {
    nb::gil_scoped_release unlocked;
    return f();
  } catch (const nb::python_error&) {
    throw;
  } catch (const runtime_error& e) {
    raise(errors().error, e.what());
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    raise(errors().error, std::string("croktile: ") + e.what());
  }
}

// A device result as a Python object: it owns the memory (freed, stream-ordered, when
// the last user is gone) and hands it out through __dlpack__/__dlpack_device__, which
// torch.from_dlpack, cupy.from_dlpack and jax.dlpack take without a copy. nanobind
// exports device memory only as a bare capsule, which those functions no longer take.
// `ready` makes the data safe for a consumer on another stream (DLPack's `stream`
// argument): it waits for the stream the result was made on.
struct device_array {
  nb::ndarray<> nd;
  std::uintptr_t producer = 0;  // the native stream of the call
  // makes the result safe on `consumer`: waits for the producer (while the producer is
  // being captured into a graph, orders the consumer after it on the GPU instead)
  void (*ready)(std::uintptr_t producer, std::uintptr_t consumer) = nullptr;
  // copies `bytes` to host memory after the work queued on `producer` (waits)
  void (*download)(void* dst, const void* src, std::size_t bytes, std::uintptr_t producer) = nullptr;
};

// A host copy as a NumPy array (what NumPy cannot take from device memory itself).
inline nb::object to_numpy(device_array& a) {
  std::size_t shape[16];
  std::size_t count = 1;
  for (std::size_t i = 0; i < a.nd.ndim() && i < 16; ++i) count *= (shape[i] = a.nd.shape(i));
  const std::size_t bytes = count * ((a.nd.dtype().bits * a.nd.dtype().lanes + 7) / 8);
  auto* host = new unsigned char[bytes > 0 ? bytes : 1];
  nb::capsule owner(host, [](void* p) noexcept { delete[] static_cast<unsigned char*>(p); });
  if (bytes > 0) run([&] { a.download(host, a.nd.data(), bytes, a.producer); });
  return nb::cast(nb::ndarray<nb::numpy>(host, a.nd.ndim(), shape, owner, nullptr, a.nd.dtype()));
}

// One class per module: the tag is a type named after the generated module, so modules
// never share a registration. Its Python type is kept per
// module too (the header is compiled with hidden visibility into each module).
inline nb::handle& device_array_type() {
  static nb::handle type;
  return type;
}

// The DLPack `stream` argument as a CUDA stream: None is the legacy default stream (1),
// 2 the per-thread default stream (cudaStreamPerThread, 2 too), -1 "no synchronisation
// wanted". Whether the consumer must be made to wait for the producer.
inline bool needs_wait(nb::handle stream, std::uintptr_t producer, std::uintptr_t& consumer) {
  consumer = 0;
  if (stream.is_none()) return producer != 0;
  const long long s = nb::cast<long long>(stream);
  if (s == -1) return false;
  consumer = s == 1 ? 0 : static_cast<std::uintptr_t>(s);
  return consumer != producer;
}

template <typename Tag>
struct device_array_of : device_array {};

template <typename Tag>
void init_device_array(nb::module_& m) {
  using D = device_array_of<Tag>;
  nb::class_<D> cls(m, "DeviceArray",
                    "Device memory a croktile function returned: pass it to torch.from_dlpack, "
                    "cupy.from_dlpack or jax.dlpack.from_dlpack (no copy), or call to_numpy().");
  cls.def(nb::init<>())
      .def(
          "__dlpack__",
          [](D& self, nb::handle stream, nb::handle, nb::handle, nb::handle) {
            std::uintptr_t consumer = 0;
            if (self.ready && self.nd.device_type() == nb::device::cuda::value &&
                needs_wait(stream, self.producer, consumer))
              run([&] { self.ready(self.producer, consumer); });
            return nb::cast(self.nd, nb::rv_policy::reference);
          },
          nb::kw_only(), nb::arg("stream") = nb::none(), nb::arg("max_version") = nb::none(),
          nb::arg("dl_device") = nb::none(), nb::arg("copy") = nb::none())
      .def("__dlpack_device__",
           [](D& self) { return nb::make_tuple(self.nd.device_type(), self.nd.device_id()); })
      .def_prop_ro("shape",
                   [](D& self) {
                     nb::list dims;
                     for (std::size_t i = 0; i < self.nd.ndim(); ++i) dims.append(self.nd.shape(i));
                     return nb::tuple(dims);
                   })
      .def("to_numpy", [](D& self) { return to_numpy(self); }, "A NumPy copy in host memory (waits for the call).");
  device_array_type() = cls;
}

// Whether NumPy has the element type: not bf16 nor the 8/6/4-bit floats, whose host
// results go out as a DeviceArray on the CPU (torch.from_dlpack takes it, no copy).
inline bool numpy_has(const nb::dlpack::dtype& dt) {
  if (dt.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float)) return dt.bits >= 16;
  return dt.code != static_cast<std::uint8_t>(nb::dlpack::dtype_code::Bfloat);
}

// A managed tensor as a Python object that owns it (no copy): a NumPy array for host
// memory (a DeviceArray where NumPy lacks the type), a DeviceArray for device memory.
inline nb::object wrap(DLManagedTensor* m, const device_array& ops = device_array()) {
  nb::capsule owner(m, [](void* p) noexcept {
    auto* mt = static_cast<DLManagedTensor*>(p);
    mt->deleter(mt);
  });
  const DLTensor& t = m->dl_tensor;
  std::size_t shape[16];
  for (std::int32_t i = 0; i < t.ndim && i < 16; ++i) shape[i] = static_cast<std::size_t>(t.shape[i]);
  const nb::dlpack::dtype dt{t.dtype.code, t.dtype.bits, t.dtype.lanes};
  const bool host = static_cast<int>(t.device.device_type) == dlpack::detail::device_cpu;
  if (host && numpy_has(dt))
    return nb::cast(nb::ndarray<nb::numpy>(t.data, static_cast<std::size_t>(t.ndim), shape, owner, nullptr, dt));
  nb::object obj = device_array_type()();
  device_array* a = nb::inst_ptr<device_array>(obj);
  a->nd = nb::ndarray<>(t.data, static_cast<std::size_t>(t.ndim), shape, owner, nullptr, dt, t.device.device_type,
                        t.device.device_id);
  a->producer = ops.producer;
  a->ready = ops.ready;
  a->download = ops.download;
  if (host && !a->download)
    a->download = [](void* dst, const void* src, std::size_t bytes, std::uintptr_t) { std::memcpy(dst, src, bytes); };
  return obj;
}

template <typename T, std::size_t Rank>
nb::object to_python(spanned_data<T, Rank>&& d) {
  return wrap(dlpack::to_managed(std::move(d)));
}

template <typename T, std::size_t Rank, typename B>
nb::object to_python(basic_device_data<T, Rank, B>&& d) {
  using native = typename B::native_stream;
  using pointer = decltype(d.data());   // T* in device memory; cl_mem on opencl
  const native s = d.stream().native();
  device_array ops;
  ops.producer = reinterpret_cast<std::uintptr_t>(s);
  ops.ready = [](std::uintptr_t p, std::uintptr_t c) {
    if constexpr (B::dlpack_device_type == dlpack::detail::device_cuda) {
      if (B::capturing(reinterpret_cast<native>(p)))
        return B::order(reinterpret_cast<native>(p), reinterpret_cast<native>(c), "croktile DeviceArray.__dlpack__");
    }
    (void)c;
    B::synchronize(reinterpret_cast<native>(p), "croktile DeviceArray");
  };
  ops.download = [](void* dst, const void* src, std::size_t bytes, std::uintptr_t p) {
    B::download(dst, reinterpret_cast<pointer>(const_cast<void*>(src)), bytes, reinterpret_cast<native>(p),
                "croktile DeviceArray.to_numpy");
    B::synchronize(reinterpret_cast<native>(p), "croktile DeviceArray.to_numpy");
  };
  return wrap(dlpack::to_managed(std::move(d)), ops);
}

}  // namespace python
}  // namespace croktile

#endif  // CROKTILE_PYTHON_H
