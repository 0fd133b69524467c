// croktile_device.h - data that lives in the target's device memory, and the
// streams work on it is queued on. The same API on every target, so one host
// program builds for cpu, factor, opencl and cuda:
//
//   croktile::device_view<T, Rank>   non-owning: a device pointer and a shape
//   croktile::device_data<T, Rank>   owning (RAII, move-only), freed stream-ordered
//   croktile::stream                 a handle to the target's queue (default: current)
//   croktile::unique_stream          a stream croktile creates and destroys
//   croktile::stream_guard           makes a stream current on this thread
//   croktile::synchronize(stream)    waits; reports failed device-side checks
//
// Each target's runtime header defines namespace croktile::backend before it
// includes this file:
//   template <class T> using device_pointer;  T* on cuda, cpu, factor; cl_mem on opencl
//   constexpr bool typed_pointers;           whether make_device_view can deduce T
//   constexpr int dlpack_device_type;        kDLCPU (1), kDLCUDA (2), kDLOpenCL (4)
//   using native_stream;                      cudaStream_t, cl_command_queue, host_queue*
//   native_stream default_stream();
//   native_stream create_stream(bool out_of_order, const char* where);
//   void destroy_stream(native_stream) noexcept;
//   template <class T> device_pointer<T> allocate(std::size_t count, native_stream, const char* where);
//   template <class T> void release(device_pointer<T>, native_stream) noexcept;
//   void zero(handle, std::size_t bytes, native_stream, const char* where);
//   void upload(handle, const void* host, std::size_t bytes, native_stream, const char* where);
//   void download(void* host, handle, std::size_t bytes, native_stream, const char* where);  (waits for it)
//   void copy(handle dst, handle src, std::size_t bytes, native_stream, const char* where);
//   void synchronize(native_stream, const char* where);
// where `handle` is what device_pointer<T> of any T converts to.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>

#include "croktile.h"

namespace croktile {

// ---------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------

namespace detail {
inline backend::native_stream& current_stream_slot() {
  thread_local backend::native_stream current = backend::default_stream();
  return current;
}
}  // namespace detail

// A non-owning handle to the queue that work is put on. Default-constructed it is
// the current stream of this thread: the innermost stream_guard's, else the
// target's default (cuda: the legacy default stream; opencl: croktile's in-order
// queue; cpu, factor: none, work runs when called).
class stream {
 public:
  stream() : native_(detail::current_stream_slot()) {}
  stream(backend::native_stream s) : native_(s) {}  // NOLINT: implicit from the native handle
  backend::native_stream native() const { return native_; }

 private:
  backend::native_stream native_;
};

// Makes `s` the current stream of this thread until the guard goes out of scope.
class stream_guard {
 public:
  explicit stream_guard(stream s) : saved_(detail::current_stream_slot()) { detail::current_stream_slot() = s.native(); }
  ~stream_guard() { detail::current_stream_slot() = saved_; }
  stream_guard(const stream_guard&) = delete;
  stream_guard& operator=(const stream_guard&) = delete;

 private:
  backend::native_stream saved_;
};

// A stream croktile creates (cuda: non-blocking; opencl: a queue in croktile's
// context, out of order if asked) and destroys, after the work on it is done.
class unique_stream {
 public:
  explicit unique_stream(bool out_of_order = false)
      : native_(backend::create_stream(out_of_order, "croktile::unique_stream")) {}
  ~unique_stream() {
    if (owned_) backend::destroy_stream(native_);
  }
  unique_stream(unique_stream&& o) noexcept : native_(o.native_), owned_(std::exchange(o.owned_, false)) {}
  unique_stream& operator=(unique_stream&& o) noexcept {
    std::swap(native_, o.native_);
    std::swap(owned_, o.owned_);
    return *this;
  }
  unique_stream(const unique_stream&) = delete;
  unique_stream& operator=(const unique_stream&) = delete;

  backend::native_stream native() const { return native_; }
  operator stream() const { return stream(native_); }  // NOLINT: pass where a stream is taken

 private:
  backend::native_stream native_;
  bool owned_ = true;
};

// Waits until the work queued on `s` is done. A kernel that failed, and a failed
// device-side check (of any call since the last synchronize), throw
// croktile::runtime_error here, with the .co.cpp location of the check.
inline void synchronize(stream s = stream()) { backend::synchronize(s.native(), "croktile::synchronize"); }

// ---------------------------------------------------------------------------
// Views and owning data
// ---------------------------------------------------------------------------

// Non-owning, row-major view of device memory: the shape of a __co__ parameter
// whose data stays where it is (no copy). Made by make_device_view, by a
// device_data's view(), or from a DLPack tensor (croktile_dlpack.h).
template <typename T, std::size_t Rank>
class device_view {
  static_assert(Rank >= 1, "croktile: device_view needs rank >= 1");

 public:
  using element_type = T;
  using pointer = backend::device_pointer<T>;
  using shape_type = std::array<std::size_t, Rank>;

  device_view() : data_(), shape_{} {}
  device_view(pointer data, const shape_type& shape) : data_(data), shape_(shape) {}

  static constexpr std::size_t rank() { return Rank; }
  pointer data() const { return data_; }
  const shape_type& shape() const { return shape_; }
  std::size_t shape(std::size_t d) const { return shape_[d]; }
  std::size_t element_count() const { return detail::product(shape_); }
  std::size_t size() const { return element_count(); }
  std::size_t bytes() const { return element_count() * sizeof(T); }
  bool empty() const { return element_count() == 0; }

 private:
  pointer data_;
  shape_type shape_;
};

namespace detail {
template <std::size_t Rank>
std::array<std::size_t, Rank> device_shape(std::initializer_list<std::size_t> dims, const char* who) {
  if (dims.size() != Rank)
    throw runtime_error(std::string(who) + ": rank is " + std::to_string(Rank) + " but " +
                        std::to_string(dims.size()) + " dimensions were given");
  std::array<std::size_t, Rank> shape{};
  std::size_t d = 0;
  for (std::size_t v : dims) shape[d++] = v;
  return shape;
}

template <typename T, typename P>
struct view_element {
  using type = T;
};
template <typename P>
struct view_element<void, P> {
  static_assert(backend::typed_pointers && std::is_pointer<P>::value,
                "croktile::make_device_view: this target's device memory is untyped (opencl: cl_mem); "
                "give the element type, as in make_device_view<2, float>(mem, {M, N})");
  using type = typename std::remove_pointer<P>::type;
};
}  // namespace detail

// A view of device memory the caller owns: make_device_view<2>(d_ptr, {M, N}) on
// cuda, cpu and factor (the element type comes from the pointer), and
// make_device_view<2, float>(mem, {M, N}) with a cl_mem on opencl (any target
// accepts the element type given explicitly).
template <std::size_t Rank, typename T = void, typename P>
device_view<typename detail::view_element<T, P>::type, Rank> make_device_view(P ptr,
                                                                            std::initializer_list<std::size_t> dims) {
  using E = typename detail::view_element<T, P>::type;
  const auto shape = detail::device_shape<Rank>(dims, "croktile::make_device_view");
  if (!ptr && detail::product(shape) != 0) throw runtime_error("croktile::make_device_view: null device pointer");
  return device_view<E, Rank>(backend::device_pointer<E>(ptr), shape);
}

// Owning device memory, zero-initialised, freed on the stream it was made on
// (stream-ordered: work queued before the free still sees it). The result type of
// a __co__ function called with device views; pass it (or its view()) to the next
// call without a copy. Move-only, like spanned_data.
template <typename T, std::size_t Rank>
class device_data {
  static_assert(Rank >= 1, "croktile: device_data needs rank >= 1");

 public:
  using element_type = T;
  using pointer = backend::device_pointer<T>;
  using shape_type = std::array<std::size_t, Rank>;

  device_data() : data_(), shape_{}, stream_(backend::default_stream()) {}
  // Zero-filled memory for `shape`, queued on `s`.
  explicit device_data(const shape_type& shape, croktile::stream s = croktile::stream())
      : data_(), shape_(shape), stream_(s.native()) {
    const std::size_t n = detail::checked_count<T>(shape);
    data_ = backend::template allocate<T>(n, stream_, "croktile::device_data");
    try {
      backend::zero(data_, n * sizeof(T), stream_, "croktile::device_data");
    } catch (...) {
      backend::template release<T>(data_, stream_);
      throw;
    }
  }
  // Takes ownership of memory from backend::allocate<T> (generated code).
  static device_data adopt(pointer data, const shape_type& shape, croktile::stream s) {
    device_data d;
    d.data_ = data;
    d.shape_ = shape;
    d.stream_ = s.native();
    return d;
  }
  ~device_data() { reset(); }
  device_data(device_data&& o) noexcept : data_(std::exchange(o.data_, pointer())), shape_(o.shape_), stream_(o.stream_) {
    o.shape_ = shape_type{};
  }
  device_data& operator=(device_data&& o) noexcept {
    if (this != &o) {
      reset();
      data_ = std::exchange(o.data_, pointer());
      shape_ = std::exchange(o.shape_, shape_type{});
      stream_ = o.stream_;
    }
    return *this;
  }
  device_data(const device_data&) = delete;
  device_data& operator=(const device_data&) = delete;

  static constexpr std::size_t rank() { return Rank; }
  pointer data() const { return data_; }
  const shape_type& shape() const { return shape_; }
  std::size_t shape(std::size_t d) const { return shape_[d]; }
  std::size_t element_count() const { return detail::product(shape_); }
  std::size_t size() const { return element_count(); }
  std::size_t bytes() const { return element_count() * sizeof(T); }
  bool empty() const { return element_count() == 0; }
  // The stream the memory was made on, and is freed on.
  croktile::stream stream() const { return croktile::stream(stream_); }

  device_view<T, Rank> view() const { return device_view<T, Rank>(data_, shape_); }
  operator device_view<T, Rank>() const { return view(); }  // NOLINT: pass to the next __co__ call

  // Copies into `dst` (same shape) after the work queued on this data's stream,
  // then waits: failed device-side checks throw here, as in synchronize().
  void copy_to_host(spanned_view<T, Rank> dst) const {
    if (dst.shape() != shape_)
      throw runtime_error("croktile::device_data::copy_to_host: the destination's shape differs from the data's");
    backend::download(dst.data(), data_, bytes(), stream_, "croktile::device_data::copy_to_host");
    backend::synchronize(stream_, "croktile::device_data::copy_to_host");
  }
  spanned_data<T, Rank> to_host() const {
    spanned_data<T, Rank> out(shape_);
    copy_to_host(out.view());
    return out;
  }

 private:
  void reset() noexcept {
    if (data_) backend::template release<T>(data_, stream_);
    data_ = pointer();
  }

  pointer data_;
  shape_type shape_;
  backend::native_stream stream_;
};

// Copies host data to new device memory, queued on `s` (the host memory may be
// reused when this returns).
template <typename T, std::size_t Rank>
device_data<typename std::remove_const<T>::type, Rank> to_device(spanned_view<T, Rank> host, stream s = stream()) {
  using E = typename std::remove_const<T>::type;
  const std::size_t n = detail::checked_count<E>(host.shape());
  auto out = device_data<E, Rank>::adopt(backend::template allocate<E>(n, s.native(), "croktile::to_device"),
                                         host.shape(), s);
  backend::upload(out.data(), host.data(), n * sizeof(E), s.native(), "croktile::to_device");
  return out;
}
template <typename T, std::size_t Rank>
device_data<T, Rank> to_device(const spanned_data<T, Rank>& host, stream s = stream()) {
  return to_device(host.view(), s);
}

// Zero-filled device memory: make_device_data<f32>(M, N), on the current stream.
template <typename T, typename... Dims>
device_data<T, sizeof...(Dims)> make_device_data(Dims... dims) {
  static_assert(sizeof...(Dims) >= 1, "croktile::make_device_data: give at least one dimension");
  return device_data<T, sizeof...(Dims)>(std::array<std::size_t, sizeof...(Dims)>{{detail::to_dim(dims)...}});
}

// ---------------------------------------------------------------------------
// What generated code needs beside the public API
// ---------------------------------------------------------------------------
namespace detail {

// The host form's copy of an argument to device memory.
template <typename T, std::size_t Rank>
device_data<T, Rank> upload(spanned_view<T, Rank> host, stream s, const char* where) {
  const std::size_t n = checked_count<T>(host.shape());
  auto out = device_data<T, Rank>::adopt(backend::template allocate<T>(n, s.native(), where), host.shape(), s);
  backend::upload(out.data(), host.data(), n * sizeof(T), s.native(), where);
  return out;
}

// The host form's copy of an argument the function wrote back to the caller's array.
template <typename T, std::size_t Rank>
void download(spanned_view<T, Rank> host, const device_view<T, Rank>& dev, stream s, const char* where) {
  backend::download(host.data(), dev.data(), dev.bytes(), s.native(), where);
}
template <typename T, std::size_t Rank>
void download(spanned_view<T, Rank> host, const device_data<T, Rank>& dev, stream s, const char* where) {
  download(host, dev.view(), s, where);
}

// The host form's result: copied to host memory once the work is done.
template <typename T, std::size_t Rank>
spanned_data<T, Rank> finish_on_host(const device_data<T, Rank>& dev, stream s, const char* where) {
  spanned_data<T, Rank> out(dev.shape());
  backend::download(out.data(), dev.data(), dev.bytes(), s.native(), where);
  backend::synchronize(s.native(), where);
  return out;
}

// A device form that returns a parameter returns a copy of it (the caller keeps its own).
template <typename T, std::size_t Rank>
device_data<T, Rank> device_copy(const device_view<T, Rank>& src, stream s, const char* where) {
  auto out = device_data<T, Rank>::adopt(backend::template allocate<T>(src.element_count(), s.native(), where),
                                         src.shape(), s);
  backend::copy(out.data(), src.data(), src.bytes(), s.native(), where);
  return out;
}

}  // namespace detail
}  // namespace croktile
