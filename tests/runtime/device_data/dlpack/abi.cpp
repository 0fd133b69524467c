// The DLPack types croktile_dlpack.h uses have the specification's layout and values,
// whether they come from a dlpack.h or from its own declarations (compiled with
// -fsyntax-only by test_dlpack.py; -DCROKTILE_TEST_EXPECT_DECLARED_HERE where no
// dlpack.h is on the include path).
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "croktile_cpu.h"
#include "croktile_dlpack.h"

#if defined(CROKTILE_TEST_EXPECT_DECLARED_HERE) && !(defined(CROKTILE_DLPACK_DECLARED_HERE) && CROKTILE_DLPACK_VERSIONED)
#error "croktile_dlpack.h did not declare the DLPack types, but no dlpack.h is on the include path"
#endif

static_assert(kDLCPU == 1 && kDLCUDA == 2 && kDLCUDAHost == 3 && kDLOpenCL == 4 && kDLCUDAManaged == 13,
              "device types");
static_assert(kDLInt == 0 && kDLUInt == 1 && kDLFloat == 2 && kDLBfloat == 4, "type codes");
static_assert(sizeof(DLDeviceType) == 4, "DLDeviceType is 32 bits");
static_assert(sizeof(DLDevice) == 8 && offsetof(DLDevice, device_type) == 0 && offsetof(DLDevice, device_id) == 4,
              "DLDevice");
static_assert(std::is_same<decltype(DLDevice::device_id), std::int32_t>::value, "DLDevice::device_id");
static_assert(sizeof(DLDataType) == 4 && offsetof(DLDataType, code) == 0 && offsetof(DLDataType, bits) == 1 &&
                  offsetof(DLDataType, lanes) == 2,
              "DLDataType");
static_assert(std::is_same<decltype(DLDataType::code), std::uint8_t>::value &&
                  std::is_same<decltype(DLDataType::bits), std::uint8_t>::value &&
                  std::is_same<decltype(DLDataType::lanes), std::uint16_t>::value,
              "DLDataType fields");
static_assert(std::is_same<decltype(DLTensor::data), void*>::value &&
                  std::is_same<decltype(DLTensor::ndim), std::int32_t>::value &&
                  std::is_same<decltype(DLTensor::shape), std::int64_t*>::value &&
                  std::is_same<decltype(DLTensor::strides), std::int64_t*>::value &&
                  std::is_same<decltype(DLTensor::byte_offset), std::uint64_t>::value,
              "DLTensor fields");
static_assert(std::is_same<decltype(DLManagedTensor::deleter), void (*)(DLManagedTensor*)>::value,
              "DLManagedTensor::deleter");
static_assert(std::is_standard_layout<DLTensor>::value && std::is_standard_layout<DLManagedTensor>::value,
              "C layout");

#if UINTPTR_MAX == 0xffffffffffffffffu
// LP64 / LLP64: the offsets every framework was built with.
static_assert(offsetof(DLTensor, data) == 0 && offsetof(DLTensor, device) == 8 && offsetof(DLTensor, ndim) == 16 &&
                  offsetof(DLTensor, dtype) == 20 && offsetof(DLTensor, shape) == 24 &&
                  offsetof(DLTensor, strides) == 32 && offsetof(DLTensor, byte_offset) == 40 && sizeof(DLTensor) == 48,
              "DLTensor layout");
static_assert(offsetof(DLManagedTensor, dl_tensor) == 0 && offsetof(DLManagedTensor, manager_ctx) == 48 &&
                  offsetof(DLManagedTensor, deleter) == 56 && sizeof(DLManagedTensor) == 64,
              "DLManagedTensor layout");
#if CROKTILE_DLPACK_VERSIONED
static_assert(offsetof(DLManagedTensorVersioned, version) == 0 && offsetof(DLManagedTensorVersioned, manager_ctx) == 8 &&
                  offsetof(DLManagedTensorVersioned, deleter) == 16 && offsetof(DLManagedTensorVersioned, flags) == 24 &&
                  offsetof(DLManagedTensorVersioned, dl_tensor) == 32 && sizeof(DLManagedTensorVersioned) == 80,
              "DLManagedTensorVersioned layout");
#endif
#endif

#if CROKTILE_DLPACK_VERSIONED
static_assert(sizeof(DLPackVersion) == 8 && offsetof(DLPackVersion, minor) == 4, "DLPackVersion");
static_assert(std::is_same<decltype(DLPackVersion::major), std::uint32_t>::value &&
                  std::is_same<decltype(DLManagedTensorVersioned::flags), std::uint64_t>::value &&
                  std::is_same<decltype(DLManagedTensorVersioned::deleter), void (*)(DLManagedTensorVersioned*)>::value,
              "DLManagedTensorVersioned fields");
static_assert(DLPACK_FLAG_BITMASK_READ_ONLY == 1 && DLPACK_FLAG_BITMASK_IS_COPIED == 2, "flags");
#elif defined(CROKTILE_DLPACK_DECLARED_HERE)
#error "the declarations of croktile_dlpack.h lack DLManagedTensorVersioned"
#endif

// What croktile's element types map to.
constexpr bool same(DLDataType a, std::uint8_t code, std::uint8_t bits) {
  return a.code == code && a.bits == bits && a.lanes == 1;
}
namespace dl = croktile::dlpack;
static_assert(same(dl::dtype_of<croktile::s8>(), kDLInt, 8) && same(dl::dtype_of<croktile::s64>(), kDLInt, 64) &&
                  same(dl::dtype_of<croktile::u16>(), kDLUInt, 16) && same(dl::dtype_of<croktile::f32>(), kDLFloat, 32) &&
                  same(dl::dtype_of<croktile::f64>(), kDLFloat, 64) && same(dl::dtype_of<croktile::f16>(), kDLFloat, 16) &&
                  same(dl::dtype_of<croktile::bf16>(), kDLBfloat, 16) && same(dl::dtype_of<bool>(), 6, 8),
              "element types");
