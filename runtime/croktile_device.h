// croktile_device.h - data that lives in a target's device memory, and the
// streams work on it is queued on. The same API on every target, so one host
// program builds for cpu, factor, opencl and cuda:
//
//   device_view<T, Rank>   non-owning: a device pointer and a shape
//   device_data<T, Rank>   owning (RAII, move-only), freed stream-ordered
//   stream                 a handle to the target's queue (default: the current one)
//   unique_stream          a stream croktile creates and destroys
//   stream_guard           makes a stream current on this thread
//   synchronize(stream)    waits; reports failed device-side checks
//   to_device, make_device_view, make_device_data
//
// The templates here take the target's backend B; each target's runtime header
// defines its backend struct and names the API in its own namespace
// (croktile::cuda::device_view, croktile::opencl::stream, croktile::host::... for
// cpu and factor) with CROKTILE_DEVICE_API, and the first one included also in
// namespace croktile (croktile::device_view), which portable host code uses. A
// program may link kernels of several targets: their types differ.
//
// A backend B has:
//   template <class T> using device_pointer;  T* on cuda, cpu, factor; cl_mem on opencl
//   static constexpr bool typed_pointers;      whether make_device_view can deduce T
//   static constexpr int dlpack_device_type;   kDLCPU (1), kDLCUDA (2), kDLOpenCL (4)
//   using native_stream;                       cudaStream_t, cl_command_queue, host_queue*
//   static native_stream default_stream();
//   static native_stream create_stream(bool out_of_order, const char* where);
//   static void destroy_stream(native_stream) noexcept;
//   template <class T> static device_pointer<T> allocate(std::size_t count, native_stream, const char* where);
//   template <class T> static void release(device_pointer<T>, native_stream) noexcept;
//   static void zero(handle, std::size_t bytes, native_stream, const char* where);
//   static void upload(handle, const void* host, std::size_t bytes, native_stream, const char* where);
//   static void download(void* host, handle, std::size_t bytes, native_stream, const char* where);  (waits)
//   static void copy(handle dst, handle src, std::size_t bytes, native_stream, const char* where);
//   static void synchronize(native_stream, const char* where);
// where `handle` is what device_pointer<T> of any T converts to.
#pragma once
#ifndef CROKTILE_DEVICE_H
#define CROKTILE_DEVICE_H

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
template <typename B>
typename B::native_stream& current_stream_slot() {
  thread_local typename B::native_stream current = B::default_stream();
  return current;
}
}  // namespace detail

// A non-owning handle to the queue that work is put on. Default-constructed it is
// the current stream of this thread: the innermost stream_guard's, else the
// target's default (cuda: the legacy default stream; opencl: croktile's in-order
// queue; cpu, factor: none, work runs when called).
template <typename B>
class basic_stream {
 public:
  using native_type = typename B::native_stream;
  basic_stream() : native_(detail::current_stream_slot<B>()) {}
  basic_stream(native_type s) : native_(s) {}  // NOLINT: implicit from the native handle
  native_type native() const { return native_; }

 private:
  native_type native_;
};

// Makes `s` the current stream of this thread until the guard goes out of scope.
template <typename B>
class basic_stream_guard {
 public:
  explicit basic_stream_guard(basic_stream<B> s) : saved_(detail::current_stream_slot<B>()) {
    detail::current_stream_slot<B>() = s.native();
  }
  ~basic_stream_guard() { detail::current_stream_slot<B>() = saved_; }
  basic_stream_guard(const basic_stream_guard&) = delete;
  basic_stream_guard& operator=(const basic_stream_guard&) = delete;

 private:
  typename B::native_stream saved_;
};

// A stream croktile creates (cuda: non-blocking; opencl: a queue in croktile's
// context, out of order if asked) and destroys, after the work on it is done.
template <typename B>
class basic_unique_stream {
 public:
  explicit basic_unique_stream(bool out_of_order = false)
      : native_(B::create_stream(out_of_order, "croktile::unique_stream")) {}
  ~basic_unique_stream() {
    if (owned_) B::destroy_stream(native_);
  }
  basic_unique_stream(basic_unique_stream&& o) noexcept : native_(o.native_), owned_(std::exchange(o.owned_, false)) {}
  basic_unique_stream& operator=(basic_unique_stream&& o) noexcept {
    std::swap(native_, o.native_);
    std::swap(owned_, o.owned_);
    return *this;
  }
  basic_unique_stream(const basic_unique_stream&) = delete;
  basic_unique_stream& operator=(const basic_unique_stream&) = delete;

  typename B::native_stream native() const { return native_; }
  operator basic_stream<B>() const { return basic_stream<B>(native_); }  // NOLINT: pass where a stream is taken

 private:
  typename B::native_stream native_;
  bool owned_ = true;
};

// Waits until the work queued on `s` is done. A kernel that failed, and a failed
// device-side check (of any call since the last synchronize), throw
// croktile::runtime_error here, with the .co.cpp location of the check.
template <typename B>
void basic_synchronize(basic_stream<B> s) {
  B::synchronize(s.native(), "croktile::synchronize");
}

// ---------------------------------------------------------------------------
// Views and owning data
// ---------------------------------------------------------------------------

// Non-owning, row-major view of device memory: the shape of a __co__ parameter
// whose data stays where it is (no copy). Made by make_device_view, by a
// device_data's view(), or from a DLPack tensor (croktile_dlpack.h).
template <typename T, std::size_t Rank, typename B>
class basic_device_view {
  static_assert(Rank >= 1, "croktile: device_view needs rank >= 1");

 public:
  using element_type = T;
  using backend = B;
  using pointer = typename B::template device_pointer<T>;
  using shape_type = std::array<std::size_t, Rank>;

  basic_device_view() : data_(), shape_{} {}
  basic_device_view(pointer data, const shape_type& shape) : data_(data), shape_(shape) {}

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

template <typename B, typename T, typename P>
struct view_element {
  using type = T;
};
template <typename B, typename P>
struct view_element<B, void, P> {
  static_assert(B::typed_pointers && std::is_pointer<P>::value,
                "croktile::make_device_view: this target's device memory is untyped (opencl: cl_mem); "
                "give the element type, as in make_device_view<2, float>(mem, {M, N})");
  using type = typename std::remove_pointer<P>::type;
};
}  // namespace detail

// A view of device memory the caller owns: make_device_view<2>(d_ptr, {M, N}) on
// cuda, cpu and factor (the element type comes from the pointer), and
// make_device_view<2, float>(mem, {M, N}) with a cl_mem on opencl (any target
// accepts the element type given explicitly).
template <typename B, std::size_t Rank, typename T, typename P>
basic_device_view<typename detail::view_element<B, T, P>::type, Rank, B> basic_make_device_view(
    P ptr, std::initializer_list<std::size_t> dims) {
  using E = typename detail::view_element<B, T, P>::type;
  const auto shape = detail::device_shape<Rank>(dims, "croktile::make_device_view");
  if (!ptr && detail::product(shape) != 0) throw runtime_error("croktile::make_device_view: null device pointer");
  return basic_device_view<E, Rank, B>(typename B::template device_pointer<E>(ptr), shape);
}

// Owning device memory, zero-initialised, freed on the stream it was made on
// (stream-ordered: work queued before the free still sees it). The result type of
// a __co__ function called with device views; pass it (or its view()) to the next
// call without a copy. Move-only, like spanned_data.
template <typename T, std::size_t Rank, typename B>
class basic_device_data {
  static_assert(Rank >= 1, "croktile: device_data needs rank >= 1");

 public:
  using element_type = T;
  using backend = B;
  using pointer = typename B::template device_pointer<T>;
  using shape_type = std::array<std::size_t, Rank>;
  using stream_type = basic_stream<B>;
  using view_type = basic_device_view<T, Rank, B>;

  basic_device_data() : data_(), shape_{}, stream_(B::default_stream()) {}
  // Zero-filled memory for `shape`, queued on `s`.
  explicit basic_device_data(const shape_type& shape, stream_type s = stream_type())
      : data_(), shape_(shape), stream_(s.native()) {
    const std::size_t n = detail::checked_count<T>(shape);
    data_ = B::template allocate<T>(n, stream_, "croktile::device_data");
    try {
      B::zero(data_, n * sizeof(T), stream_, "croktile::device_data");
    } catch (...) {
      B::template release<T>(data_, stream_);
      throw;
    }
  }
  // Takes ownership of memory from B::allocate<T> (generated code).
  static basic_device_data adopt(pointer data, const shape_type& shape, stream_type s) {
    basic_device_data d;
    d.data_ = data;
    d.shape_ = shape;
    d.stream_ = s.native();
    return d;
  }
  ~basic_device_data() { reset(); }
  basic_device_data(basic_device_data&& o) noexcept
      : data_(std::exchange(o.data_, pointer())), shape_(std::exchange(o.shape_, shape_type{})), stream_(o.stream_) {}
  basic_device_data& operator=(basic_device_data&& o) noexcept {
    if (this != &o) {
      reset();
      data_ = std::exchange(o.data_, pointer());
      shape_ = std::exchange(o.shape_, shape_type{});
      stream_ = o.stream_;
    }
    return *this;
  }
  basic_device_data(const basic_device_data&) = delete;
  basic_device_data& operator=(const basic_device_data&) = delete;

  static constexpr std::size_t rank() { return Rank; }
  pointer data() const { return data_; }
  const shape_type& shape() const { return shape_; }
  std::size_t shape(std::size_t d) const { return shape_[d]; }
  std::size_t element_count() const { return detail::product(shape_); }
  std::size_t size() const { return element_count(); }
  std::size_t bytes() const { return element_count() * sizeof(T); }
  bool empty() const { return element_count() == 0; }
  // The stream the memory was made on, and is freed on.
  stream_type stream() const { return stream_type(stream_); }

  view_type view() const { return view_type(data_, shape_); }
  operator view_type() const { return view(); }  // NOLINT: pass to the next __co__ call

  // Copies into `dst` (same shape) after the work queued on this data's stream,
  // then waits: failed device-side checks throw here, as in synchronize().
  void copy_to_host(spanned_view<T, Rank> dst) const {
    if (dst.shape() != shape_)
      throw runtime_error("croktile::device_data::copy_to_host: the destination's shape differs from the data's");
    B::download(dst.data(), data_, bytes(), stream_, "croktile::device_data::copy_to_host");
    B::synchronize(stream_, "croktile::device_data::copy_to_host");
  }
  spanned_data<T, Rank> to_host() const {
    spanned_data<T, Rank> out(shape_);
    copy_to_host(out.view());
    return out;
  }

 private:
  void reset() noexcept {
    if (data_) B::template release<T>(data_, stream_);
    data_ = pointer();
  }

  pointer data_;
  shape_type shape_;
  typename B::native_stream stream_;
};

// A copy of host data in new device memory, queued on `s` (the host memory may be
// reused when this returns).
template <typename B, typename T, std::size_t Rank>
basic_device_data<typename std::remove_const<T>::type, Rank, B> basic_to_device(spanned_view<T, Rank> host,
                                                                             basic_stream<B> s, const char* where) {
  using E = typename std::remove_const<T>::type;
  const std::size_t n = detail::checked_count<E>(host.shape());
  auto out = basic_device_data<E, Rank, B>::adopt(B::template allocate<E>(n, s.native(), where), host.shape(), s);
  B::upload(out.data(), host.data(), n * sizeof(E), s.native(), where);
  return out;
}

// ---------------------------------------------------------------------------
// What generated code needs beside the public API
// ---------------------------------------------------------------------------
namespace detail {

// The host form's copy of an argument to device memory.
template <typename B, typename T, std::size_t Rank>
basic_device_data<T, Rank, B> upload(spanned_view<T, Rank> host, basic_stream<B> s, const char* where) {
  return basic_to_device(host, s, where);
}

// The host form's copy of an argument the function wrote back to the caller's array.
template <typename B, typename T, std::size_t Rank>
void download(spanned_view<T, Rank> host, const basic_device_view<T, Rank, B>& dev, basic_stream<B> s,
              const char* where) {
  B::download(host.data(), dev.data(), dev.bytes(), s.native(), where);
}
template <typename B, typename T, std::size_t Rank>
void download(spanned_view<T, Rank> host, const basic_device_data<T, Rank, B>& dev, basic_stream<B> s,
              const char* where) {
  download(host, dev.view(), s, where);
}

// Whether backend B says which host memory its results are downloaded into
// (`B::host_result_blocks(bytes)`, a detail::block_kind: cuda's pinned blocks).
template <typename B, typename = void>
struct has_host_result_blocks : std::false_type {};
template <typename B>
struct has_host_result_blocks<B, std::void_t<decltype(B::host_result_blocks(std::size_t()))>> : std::true_type {};

// The host form's result: copied to host memory once the work is done.
template <typename B, typename T, std::size_t Rank>
spanned_data<T, Rank> finish_on_host(const basic_device_data<T, Rank, B>& dev, basic_stream<B> s, const char* where) {
  const detail::block_kind* kind = &detail::plain_blocks();
  if constexpr (has_host_result_blocks<B>::value) kind = &B::host_result_blocks(dev.bytes());
  spanned_data<T, Rank> out(dev.shape(), typename spanned_data<T, Rank>::overwritten_t{}, *kind);
  B::download(out.data(), dev.data(), dev.bytes(), s.native(), where);
  B::synchronize(s.native(), where);
  return out;
}

// The destination form's check of the caller's view (`out`): the result's shape.
template <typename V, std::size_t Rank>
void expect_result_shape(const V& out, const std::array<std::size_t, Rank>& shape, const char* fn, const char* where) {
  if (out.shape() == shape) return;
  auto text = [](const std::array<std::size_t, Rank>& dims) {
    std::string t = "[";
    for (std::size_t d = 0; d < Rank; ++d) t += (d ? ", " : "") + std::to_string(dims[d]);
    return t + "]";
  };
  throw runtime_error(std::string(where) + ": argument 'out' of '" + fn + "' has shape " + text(out.shape()) +
                      ", but the result's shape is " + text(shape));
}

// The destination form's result memory: the caller's view, checked.
template <typename T, std::size_t Rank, typename B>
typename B::template device_pointer<T> destination(const basic_device_view<T, Rank, B>& out,
                                                   const std::array<std::size_t, Rank>& shape, const char* fn,
                                                   const char* where) {
  expect_result_shape(out, shape, fn, where);
  return out.data();
}

// The destination form of a function whose result is not written in place: a copy.
template <typename T, std::size_t Rank, typename B>
void copy_result(const basic_device_view<T, Rank, B>& out, typename B::template device_pointer<T> src,
                 const std::array<std::size_t, Rank>& shape, basic_stream<B> s, const char* fn, const char* where) {
  expect_result_shape(out, shape, fn, where);
  B::copy(out.data(), src, out.bytes(), s.native(), where);
}

// A device form that returns a parameter returns a copy of it (the caller keeps its own).
template <typename B, typename T, std::size_t Rank>
basic_device_data<T, Rank, B> device_copy(const basic_device_view<T, Rank, B>& src, basic_stream<B> s,
                                          const char* where) {
  auto out = basic_device_data<T, Rank, B>::adopt(B::template allocate<T>(src.element_count(), s.native(), where),
                                                  src.shape(), s);
  B::copy(out.data(), src.data(), src.bytes(), s.native(), where);
  return out;
}

}  // namespace detail
}  // namespace croktile

#endif  // CROKTILE_DEVICE_H

// The API of one backend under short names, in the namespace where this expands:
// each target header expands it in its own namespace, and the first one also in
// namespace croktile.
#define CROKTILE_DEVICE_API(B)                                                                                   \
  template <typename T, std::size_t Rank>                                                                        \
  using device_view = ::croktile::basic_device_view<T, Rank, B>;                                                 \
  template <typename T, std::size_t Rank>                                                                        \
  using device_data = ::croktile::basic_device_data<T, Rank, B>;                                                 \
  using stream = ::croktile::basic_stream<B>;                                                                    \
  using stream_guard = ::croktile::basic_stream_guard<B>;                                                        \
  using unique_stream = ::croktile::basic_unique_stream<B>;                                                      \
  /* Waits for `s`; a failed kernel or device-side check (of any call since the last */                         \
  /* synchronize) throws croktile::runtime_error with the .co.cpp location. */                                   \
  inline void synchronize(stream s = stream()) { ::croktile::basic_synchronize(s); }                                \
  template <std::size_t Rank, typename T = void, typename P>                                                     \
  auto make_device_view(P ptr, std::initializer_list<std::size_t> dims) {                                        \
    return ::croktile::basic_make_device_view<B, Rank, T>(ptr, dims);                                            \
  }                                                                                                              \
  template <typename T, std::size_t Rank>                                                                        \
  auto to_device(::croktile::spanned_view<T, Rank> host, stream s = stream()) {                                  \
    return ::croktile::basic_to_device(host, s, "croktile::to_device");                                          \
  }                                                                                                              \
  template <typename T, std::size_t Rank>                                                                        \
  auto to_device(const ::croktile::spanned_data<T, Rank>& host, stream s = stream()) {                           \
    return ::croktile::basic_to_device(host.view(), s, "croktile::to_device");                                   \
  }                                                                                                              \
  /* Zero-filled device memory: make_device_data<f32>(M, N), on the current stream. */                          \
  template <typename T, typename... Dims>                                                                        \
  device_data<T, sizeof...(Dims)> make_device_data(Dims... dims) {                                               \
    static_assert(sizeof...(Dims) >= 1, "croktile::make_device_data: give at least one dimension");             \
    return device_data<T, sizeof...(Dims)>(                                                                      \
        std::array<std::size_t, sizeof...(Dims)>{{::croktile::detail::to_dim(dims)...}});                      \
  }
