// DLPack tensors in and out of __co__ functions (croktile_dlpack.h), on every target.
// main plays a framework: it holds tensors in the target's device memory (or host
// memory), describes them by DLTensors built by hand (strides, byte_offset, several
// dtypes), calls __co__ functions through croktile::dlpack::to_view (device form) and
// to_host_view (host form), hands results back with from_view and to_managed, and
// prints one line per case, "case: output", which test_dlpack.py compares with values
// computed in Python. A case that must fail prints the croktile::runtime_error's text.
#include <cstdint>
#include <iostream>
#include <string>
#include <type_traits>
#include <vector>

#include "croktile_dlpack.h"

__cok__ {
  extern "C" void scale_k(float* x, float* y, int k, int n) {
    for (int i = 0; i < n; ++i) y[i] = x[i] * k;
  }
  extern "C" void add_k(int* a, int* b, int* c, int n) {
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
  }
}

__co__ f32 [a.span] scale(f32 [M, N] a, int k) {
  f32 [a.span] out;
  parallel p by 1 {
    x = dma.copy a => local;
    local f32 [x.span] y;
    call scale_k(x.data, y, k, |x.span|);
    dma.copy y => out;
  }
  return out;
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

// destination passing: the result lands in the caller's (the framework's) memory
__co__ void copy_into(f32 [M, N] src, f32 [M, N] dst) {
  parallel p by 1 {
    t = dma.copy src => local;
    dma.copy t => dst;
  }
}

__co__ f16 [a.span] copy_f16(f16 [M, N] a) {
  f16 [a.span] out;
  parallel p by 1 {
    t = dma.copy a => local;
    dma.copy t => out;
  }
  return out;
}

__co__ bf16 [a.span] copy_bf16(bf16 [N] a) {
  bf16 [a.span] out;
  parallel p by 1 {
    t = dma.copy a => local;
    dma.copy t => out;
  }
  return out;
}

__co__ u8 [a.span] copy_u8(u8 [M, N] a) {
  u8 [a.span] out;
  parallel p by 1 {
    t = dma.copy a => local;
    dma.copy t => out;
  }
  return out;
}

namespace dl = croktile::dlpack;
using backend = dl::default_backend;

// A framework's tensor: a DLTensor and the storage of its shape and strides (no strides: NULL).
struct fw_tensor {
  std::vector<std::int64_t> shape, strides;
  DLTensor t{};
  fw_tensor(void* data, DLDevice device, DLDataType dtype, std::vector<std::int64_t> dims,
            std::vector<std::int64_t> steps = {}, std::uint64_t byte_offset = 0)
      : shape(std::move(dims)), strides(std::move(steps)) {
    t.data = data;
    t.device = device;
    t.ndim = static_cast<std::int32_t>(shape.size());
    t.dtype = dtype;
    t.shape = shape.data();
    t.strides = strides.empty() ? nullptr : strides.data();
    t.byte_offset = byte_offset;
  }
  fw_tensor(const fw_tensor&) = delete;
};

// A framework's allocation in the target's device memory, filled with `values`.
template <typename T>
struct fw_memory {
  croktile::device_data<T, 1> mem;
  explicit fw_memory(const std::vector<T>& values)
      : mem(croktile::to_device(croktile::make_spanview<1>(values.data(), {values.size()}))) {}
  void* data() const { return dl::from_view(mem).get().data; }
  DLDevice device() const { return dl::from_view(mem).get().device; }
  std::vector<T> read() const {
    auto host = mem.to_host();
    return std::vector<T>(host.begin(), host.end());
  }
};

const DLDevice host_device{kDLCPU, 0};

template <typename T>
void print_value(T v) {
  if constexpr (std::is_integral<T>::value)
    std::cout << static_cast<long long>(v);
  else
    std::cout << static_cast<float>(v);
}

template <typename R>
void print(const char* name, const R& r) {
  std::cout << name << ":";
  for (std::size_t d = 0; d < r.rank(); ++d) std::cout << (d ? "x" : " ") << r.shape(d);
  for (const auto& v : r) {
    std::cout << " ";
    print_value(v);
  }
  std::cout << "\n";
}

template <typename T>
void print(const char* name, const std::vector<T>& values) {
  std::cout << name << ":";
  for (T v : values) {
    std::cout << " ";
    print_value(v);
  }
  std::cout << "\n";
}

void describe(const char* name, const DLTensor& t) {
  std::cout << name << ": ndim " << t.ndim << " shape";
  for (int d = 0; d < t.ndim; ++d) std::cout << " " << t.shape[d];
  std::cout << " strides";
  for (int d = 0; d < t.ndim; ++d) std::cout << " " << t.strides[d];
  std::cout << " " << dl::dtype_name(t.dtype) << " device " << dl::detail::device_type_name(t.device.device_type)
            << ":" << t.device.device_id << " byte_offset " << t.byte_offset << "\n";
}

template <typename F>
void expect_error(const char* name, F&& f) {
  try {
    f();
    std::cout << name << ": no error\n";
  } catch (const croktile::runtime_error& e) {
    std::cout << name << ": " << e.what() << "\n";
  }
}

std::vector<float> iota_floats(std::size_t n, float step) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) * step;
  return v;
}

template <typename T>
void print_dtype() {
  const DLDataType d = dl::dtype_of<T>();
  std::cout << " " << dl::dtype_name(d) << "=" << int(d.code) << "/" << int(d.bits) << "/" << d.lanes;
}

void dtypes() {
  std::cout << "dtypes:";
  print_dtype<std::int8_t>(), print_dtype<std::int16_t>(), print_dtype<std::int32_t>();
  print_dtype<std::int64_t>(), print_dtype<std::uint8_t>(), print_dtype<std::uint16_t>();
  print_dtype<std::uint32_t>(), print_dtype<std::uint64_t>(), print_dtype<float>(), print_dtype<double>();
  print_dtype<croktile::f16>(), print_dtype<croktile::bf16>(), print_dtype<bool>(), print_dtype<const float>();
  std::cout << "\n";
}

// The device form on framework memory: offsets, strides that do not matter, empty tensors.
void device_calls() {
  fw_memory<float> a(iota_floats(14, 0.5f));
  // rows of 4 from element 2 on: byte_offset 8 (a cl_mem cannot be offset)
  expect_error("offset_error", [&] {
    fw_tensor t(a.data(), a.device(), dl::dtype_of<float>(), {3, 4}, {4, 1}, 8);
    print("offset", scale(dl::to_view<float, 2>(t.t), 3).to_host());
  });
  fw_tensor plain(a.data(), a.device(), dl::dtype_of<float>(), {3, 4});
  print("null_strides", scale(dl::to_view<float, 2>(plain.t), 2).to_host());
  fw_tensor row(a.data(), a.device(), dl::dtype_of<float>(), {1, 12}, {5, 1});
  print("size1_row", scale(dl::to_view<float, 2>(row.t), 1).to_host());
  fw_tensor column(a.data(), a.device(), dl::dtype_of<float>(), {12, 1}, {1, 0});
  print("size1_column", scale(dl::to_view<float, 2>(column.t), 1).to_host());
  fw_tensor empty(nullptr, a.device(), dl::dtype_of<float>(), {0, 4}, {7, 9});
  print("empty", scale(dl::to_view<float, 2>(empty.t), 1).to_host());

  // destination passing into framework memory, after its first two elements where it can be offset
  fw_memory<float> dst(std::vector<float>(14, -1.0f));
  fw_tensor src_t(a.data(), a.device(), dl::dtype_of<float>(), {3, 4});
  fw_tensor dst_t(dst.data(), dst.device(), dl::dtype_of<float>(), {3, 4}, {4, 1}, backend::typed_pointers ? 8 : 0);
  copy_into(dl::to_view<float, 2>(src_t.t), dl::to_view<float, 2>(dst_t.t));
  print("copy_into", dst.read());

  fw_memory<std::int32_t> x({1, 2, 3, 2000000000}), y({10, 20, 30, 40});
  fw_tensor xt(x.data(), x.device(), dl::dtype_of<std::int32_t>(), {4}, {1});
  fw_tensor yt(y.data(), y.device(), dl::dtype_of<std::int32_t>(), {4});
  print("add_s32", add(dl::to_view<std::int32_t, 1>(xt.t), dl::to_view<std::int32_t, 1>(yt.t)).to_host());

  std::vector<croktile::f16> halves;
  for (int i = 0; i < 6; ++i) halves.push_back(croktile::f16(i * 0.25f - 1.0f));
  fw_memory<croktile::f16> h(halves);
  fw_tensor ht(h.data(), h.device(), DLDataType{kDLFloat, 16, 1}, {2, 3}, {3, 1});
  print("copy_f16", copy_f16(dl::to_view<croktile::f16, 2>(ht.t)).to_host());

  std::vector<croktile::bf16> brains{croktile::bf16(1.5f), croktile::bf16(-256.0f), croktile::bf16(0.125f)};
  fw_memory<croktile::bf16> b(brains);
  fw_tensor bt(b.data(), b.device(), DLDataType{kDLBfloat, 16, 1}, {3});
  print("copy_bf16", copy_bf16(dl::to_view<croktile::bf16, 1>(bt.t)).to_host());

  fw_memory<std::uint8_t> u({0, 1, 127, 128, 200, 255});
  fw_tensor ut(u.data(), u.device(), DLDataType{kDLUInt, 8, 1}, {3, 2});
  print("copy_u8", copy_u8(dl::to_view<std::uint8_t, 2>(ut.t)).to_host());
}

// The host form on host memory (every target), with a byte_offset and explicit strides.
void host_calls() {
  std::vector<float> values = iota_floats(13, 0.25f);
  fw_tensor t(values.data(), host_device, dl::dtype_of<float>(), {4, 3}, {3, 1}, 4);
  print("host", scale(dl::to_host_view<float, 2>(t.t), 4));
  fw_tensor managed(values.data(), DLDevice{kDLCUDAManaged, 0}, dl::dtype_of<float>(), {2, 6});
  print("host_managed", scale(dl::to_host_view<float, 2>(managed.t), 1));
  fw_tensor readonly(values.data(), host_device, dl::dtype_of<float>(), {12});
  print("host_const", dl::to_host_view<const float, 1>(readonly.t));
}

// croktile memory as DLTensors: what a framework sees of it.
void exports() {
  std::vector<float> values = iota_floats(12, 1.0f);
  fw_tensor t(values.data(), host_device, dl::dtype_of<float>(), {3, 4});
  auto result = scale(croktile::to_device(dl::to_host_view<float, 2>(t.t)), 2);
  std::vector<dl::borrowed_tensor<2>> kept;
  {
    auto b = dl::from_view(result);
    kept.push_back(b);  // a copy: its shape and strides are its own
  }
  describe("export_data", kept.front());
  const bool same = dl::to_view<float, 2>(kept.front()).data() == result.data();
  std::cout << "export_same_memory: " << (same ? "yes" : "no") << "\n";
  print("export_reimport", scale(dl::to_view<float, 2>(kept.front()), 1).to_host());
  describe("export_host", dl::from_view(croktile::make_spanview<2>(values.data(), {2, 6})));
  auto host_result = scale(croktile::make_spanview<2>(values.data(), {6, 2}), 1);
  describe("export_host_data", dl::from_view(host_result));
}

int deleter_calls = 0;
void (*framework_deleter)(DLManagedTensor*) = nullptr;
// What a consumer calls when it is done; counts, then runs croktile's deleter.
void counting_deleter(DLManagedTensor* m) {
  ++deleter_calls;
  framework_deleter(m);
}

// A result handed over with to_managed, taken back as a view, and released once.
void round_trip() {
  fw_memory<float> a(iota_floats(12, 1.0f));
  fw_tensor t(a.data(), a.device(), dl::dtype_of<float>(), {3, 4});
  auto r = scale(dl::to_view<float, 2>(t.t), 2);
  DLManagedTensor* m = dl::to_managed(std::move(r));
  std::cout << "managed_moved_from: " << (r.data() == nullptr && r.empty() ? "empty" : "not empty") << "\n";
  describe("managed", m->dl_tensor);
  framework_deleter = m->deleter;
  m->deleter = &counting_deleter;
  {
    dl::managed_ptr owner(m);
    print("managed_again", scale(dl::to_view<float, 2>(*owner), 10).to_host());
    std::cout << "managed_deleter_calls_in_use: " << deleter_calls << "\n";
  }
  std::cout << "managed_deleter_calls: " << deleter_calls << "\n";

  std::vector<float> values = iota_floats(6, 1.0f);
  DLManagedTensor* hm = dl::to_managed(scale(croktile::make_spanview<2>(values.data(), {2, 3}), 3));
  describe("managed_host", hm->dl_tensor);
  framework_deleter = hm->deleter;
  hm->deleter = &counting_deleter;
  print("managed_host_again", scale(dl::to_host_view<float, 2>(*hm), 2));
  hm->deleter(hm);
  std::cout << "managed_host_deleter_calls: " << deleter_calls << "\n";
}

#if CROKTILE_DLPACK_VERSIONED
void (*framework_versioned_deleter)(DLManagedTensorVersioned*) = nullptr;
void counting_versioned_deleter(DLManagedTensorVersioned* m) {
  ++deleter_calls;
  framework_versioned_deleter(m);
}

// The same with DLPack 1.x managed tensors, which say their version and flags.
void round_trip_versioned() {
  fw_memory<float> a(iota_floats(12, 1.0f));
  fw_tensor t(a.data(), a.device(), dl::dtype_of<float>(), {3, 4});
  DLManagedTensorVersioned* m = dl::to_managed_versioned(scale(dl::to_view<float, 2>(t.t), 2));
  std::cout << "versioned_version: " << m->version.major << "." << m->version.minor << " flags " << m->flags << "\n";
  describe("versioned", m->dl_tensor);
  const int before = deleter_calls;
  {
    framework_versioned_deleter = m->deleter;
    m->deleter = &counting_versioned_deleter;
    dl::versioned_managed_ptr owner(m);
    print("versioned_again", scale(dl::to_view<float, 2>(*owner), 10).to_host());
    std::vector<float> values = iota_floats(6, 1.0f);
    dl::versioned_managed_ptr host(
        dl::to_managed_versioned(scale(croktile::make_spanview<2>(values.data(), {2, 3}), 3)));
    describe("versioned_host", host->dl_tensor);
    print("versioned_host_again", scale(dl::to_host_view<float, 2>(*host), 2));
    host->version.major = 2;
    expect_error("versioned_major", [&] { dl::to_host_view<float, 2>(*host); });
    host->version.major = 1;
  }
  std::cout << "versioned_deleter_calls: " << deleter_calls - before << "\n";
}
#endif

// Tensors croktile cannot take as they are.
void errors() {
  std::vector<float> values = iota_floats(16, 1.0f);
  std::vector<std::int64_t> longs(12, 7);
  void* host = values.data();
  fw_memory<float> device(values);
  void* dev = device.data();
  const DLDevice dev_device = device.device();
  const DLDataType f32 = dl::dtype_of<float>();
  const auto device_view = [](const fw_tensor& t) { return dl::to_view<float, 2>(t.t); };
  const auto host_view = [](const fw_tensor& t) { return dl::to_host_view<float, 2>(t.t); };
  expect_error("ndim", [&] { device_view(fw_tensor(dev, dev_device, f32, {2, 2, 3})); });
  expect_error("ndim_host", [&] { dl::to_host_view<float, 3>(fw_tensor(host, host_device, f32, {12}).t); });
  expect_error("dtype", [&] { device_view(fw_tensor(dev, dev_device, dl::dtype_of<std::int64_t>(), {3, 4})); });
  expect_error("dtype_host",
               [&] { host_view(fw_tensor(longs.data(), host_device, DLDataType{kDLInt, 64, 1}, {3, 4})); });
  expect_error("dtype_bf16", [&] {
    dl::to_host_view<croktile::f16, 1>(fw_tensor(host, host_device, DLDataType{kDLBfloat, 16, 1}, {4}).t);
  });
  expect_error("dtype_unknown", [&] { host_view(fw_tensor(host, host_device, DLDataType{9, 8, 1}, {3, 4})); });
  expect_error("lanes", [&] { device_view(fw_tensor(dev, dev_device, DLDataType{kDLFloat, 32, 4}, {3, 1})); });
  expect_error("column_major", [&] { device_view(fw_tensor(dev, dev_device, f32, {3, 4}, {1, 3})); });
  expect_error("padded_rows", [&] { host_view(fw_tensor(host, host_device, f32, {3, 4}, {5, 1})); });
  expect_error("broadcast", [&] { host_view(fw_tensor(host, host_device, f32, {3, 4}, {0, 1})); });
  expect_error("wrong_device", [&] { device_view(fw_tensor(host, DLDevice{kDLCUDA, 9}, f32, {3, 4})); });
  expect_error("wrong_device_host", [&] { host_view(fw_tensor(host, DLDevice{kDLOpenCL, 0}, f32, {3, 4})); });
  expect_error("unknown_device", [&] { host_view(fw_tensor(host, DLDevice{DLDeviceType(99), 2}, f32, {3, 4})); });
  expect_error("null_data", [&] { device_view(fw_tensor(nullptr, dev_device, f32, {3, 4})); });
  expect_error("null_data_host", [&] { host_view(fw_tensor(nullptr, host_device, f32, {3, 4})); });
  expect_error("negative", [&] { device_view(fw_tensor(dev, dev_device, f32, {3, -4})); });
  expect_error("null_shape", [&] {
    fw_tensor t(host, host_device, f32, {3, 4});
    t.t.shape = nullptr;
    host_view(t);
  });
  expect_error("misaligned", [&] { device_view(fw_tensor(dev, dev_device, f32, {3, 4}, {}, 2)); });
  expect_error("misaligned_host", [&] { host_view(fw_tensor(host, host_device, f32, {3, 4}, {}, 6)); });
  expect_error("too_large", [&] { host_view(fw_tensor(host, host_device, f32, {1LL << 40, 1LL << 40})); });
}

int main() {
  try {
    dtypes();
    device_calls();
    host_calls();
    exports();
    round_trip();
#if CROKTILE_DLPACK_VERSIONED
    round_trip_versioned();
#endif
    errors();
  } catch (const std::exception& e) {
    std::cout << "unexpected exception: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
