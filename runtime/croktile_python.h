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

#include <cstdint>
#include <string>
#include <utility>

#include "croktile.h"
#include "croktile_device.h"
#include "croktile_dlpack.h"

namespace croktile {
namespace python {

namespace nb = nanobind;

// An array argument as nanobind imports it: read-only is accepted (croktile writes
// only to the parameters a __co__ function writes to).
using array = nb::ndarray<nb::ro>;

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

// The array behind a Python object, or croktile.ArgumentError naming the parameter.
inline array import_array(nb::handle h, const param_info& p) {
  array a;
  if (!nb::try_cast<array>(h, a, false))
    raise(errors().argument_error,
          named(p) + ": an array expected (an object with __dlpack__ or the buffer protocol: NumPy, PyTorch, "
                     "CuPy, JAX), got " + python_type_name(h));
  return a;
}

// The DLTensor nanobind's ndarray describes (its data already includes the offset).
inline DLTensor describe(const array& a, std::int64_t* shape, std::int64_t* strides) {
  DLTensor t{};
  t.data = const_cast<void*>(a.data());
  t.device = DLDevice{static_cast<DLDeviceType>(a.device_type()), a.device_id()};
  t.ndim = static_cast<std::int32_t>(a.ndim());
  const nb::dlpack::dtype d = a.dtype();
  t.dtype = DLDataType{d.code, d.bits, d.lanes};
  for (std::size_t i = 0; i < a.ndim(); ++i) {
    shape[i] = a.shape(i);
    strides[i] = a.stride(i);
  }
  t.shape = shape;
  t.strides = strides;
  t.byte_offset = 0;
  return t;
}

// Rewords a check of croktile_dlpack.h ("croktile::dlpack::to_view: dtype float32
// expected, got int64") for the parameter it is about.
[[noreturn]] inline void argument_failed(const param_info& p, const std::exception& e) {
  std::string what = e.what();
  const std::size_t colon = what.find(": ");
  if (what.rfind("croktile::dlpack::", 0) == 0 && colon != std::string::npos) what = what.substr(colon + 2);
  raise(errors().argument_error, named(p) + ": " + what);
}

inline void check_rank(const array& a, std::size_t rank, const param_info& p) {
  if (a.ndim() != rank)
    raise(errors().argument_error, named(p) + ": an array of rank " + std::to_string(rank) + " expected, got rank " +
                                       std::to_string(a.ndim()));
}

// A host view (the host-array form) of an argument.
template <typename T, std::size_t Rank>
spanned_view<T, Rank> host_view(const array& a, const param_info& p) {
  check_rank(a, Rank, p);
  std::int64_t shape[Rank > 0 ? Rank : 1], strides[Rank > 0 ? Rank : 1];
  const DLTensor t = describe(a, shape, strides);
  try {
    return dlpack::to_host_view<T, Rank>(t);
  } catch (const std::exception& e) {
    argument_failed(p, e);
  }
}

// A device view (the device form) of an argument.
template <typename T, std::size_t Rank>
device_view<T, Rank> dev_view(const array& a, const param_info& p) {
  check_rank(a, Rank, p);
  std::int64_t shape[Rank > 0 ? Rank : 1], strides[Rank > 0 ? Rank : 1];
  const DLTensor t = describe(a, shape, strides);
  try {
    return dlpack::to_view<T, Rank>(t);
  } catch (const std::exception& e) {
    argument_failed(p, e);
  }
}

// Whether a call takes the device form: on a target whose device memory is not host
// memory, when its first array argument is in device memory (then every array must be).
inline bool device_call(const array& first) {
  using backend = dlpack::default_backend;
  if constexpr (backend::dlpack_device_type == dlpack::detail::device_cpu) {
    (void)first;
    return false;
  } else {
    const int type = first.device_type();
    return !(type == dlpack::detail::device_cpu || type == dlpack::detail::device_cuda_host);
  }
}

// The stream a device-form call is queued on: `stream` if given (an int handle, or an
// object with .cuda_stream or .ptr, as PyTorch's and CuPy's streams have); else the
// current stream of PyTorch or CuPy when one of them is imported; else croktile's
// current stream (the legacy default stream on cuda).
inline stream current_stream(nb::handle given) {
  using native = stream::native_type;
  if constexpr (!std::is_pointer<native>::value) {
    (void)given;
    return stream();
  } else {
    auto from_int = [](nb::handle h) { return reinterpret_cast<native>(nb::cast<std::uintptr_t>(h)); };
    auto from_object = [&](nb::handle h) -> native {
      if (PyLong_Check(h.ptr())) return from_int(h);
      if (nb::hasattr(h, "cuda_stream")) return from_int(h.attr("cuda_stream"));
      if (nb::hasattr(h, "ptr")) return from_int(h.attr("ptr"));
      raise(errors().argument_error, "stream: an int (cudaStream_t) or a stream object with .cuda_stream or .ptr "
                                     "expected, got " + python_type_name(h));
    };
    if (!given.is_none()) return stream(from_object(given));
    if constexpr (dlpack::default_backend::dlpack_device_type == dlpack::detail::device_cuda) {
      nb::dict modules = nb::borrow<nb::dict>(nb::module_::import_("sys").attr("modules"));
      if (modules.contains("torch")) {
        nb::handle torch = modules["torch"];
        return stream(from_int(torch.attr("cuda").attr("current_stream")().attr("cuda_stream")));
      }
      if (modules.contains("cupy")) {
        nb::handle cupy = modules["cupy"];
        return stream(from_int(cupy.attr("cuda").attr("get_current_stream")().attr("ptr")));
      }
    }
    return stream();
  }
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
  std::uintptr_t producer = 0;                      // the native stream of the call
  void (*ready)(std::uintptr_t producer) = nullptr;  // waits for it
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
// 2 the per-thread default stream, -1 "no synchronisation wanted".
inline bool needs_wait(nb::handle stream, std::uintptr_t producer) {
  if (stream.is_none()) return producer != 0;
  const long long s = nb::cast<long long>(stream);
  if (s == -1) return false;
  const std::uintptr_t consumer = s == 1 ? 0 : static_cast<std::uintptr_t>(s);
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
            if (self.ready && self.nd.device_type() == nb::device::cuda::value && needs_wait(stream, self.producer))
              run([&] { self.ready(self.producer); });
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

// A managed tensor as a Python object that owns it (no copy): a NumPy array for host
// memory, a DeviceArray for device memory.
inline nb::object wrap(DLManagedTensor* m, const device_array& ops = device_array()) {
  nb::capsule owner(m, [](void* p) noexcept {
    auto* mt = static_cast<DLManagedTensor*>(p);
    mt->deleter(mt);
  });
  const DLTensor& t = m->dl_tensor;
  std::size_t shape[16];
  for (std::int32_t i = 0; i < t.ndim && i < 16; ++i) shape[i] = static_cast<std::size_t>(t.shape[i]);
  const nb::dlpack::dtype dt{t.dtype.code, t.dtype.bits, t.dtype.lanes};
  if (static_cast<int>(t.device.device_type) == dlpack::detail::device_cpu)
    return nb::cast(nb::ndarray<nb::numpy>(t.data, static_cast<std::size_t>(t.ndim), shape, owner, nullptr, dt));
  nb::object obj = device_array_type()();
  device_array* a = nb::inst_ptr<device_array>(obj);
  a->nd = nb::ndarray<>(t.data, static_cast<std::size_t>(t.ndim), shape, owner, nullptr, dt, t.device.device_type,
                        t.device.device_id);
  a->producer = ops.producer;
  a->ready = ops.ready;
  a->download = ops.download;
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
  ops.ready = [](std::uintptr_t p) { B::synchronize(reinterpret_cast<native>(p), "croktile DeviceArray"); };
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
