// What every op of the shared kernels does around a launch: find the call's ComputeDevice,
// name the program variant of a dtype, pass scalars in the variant's compute type, hold
// device temporaries, and launch an elementwise kernel over tensors of one shape (choosing
// the dense "_contig" kernel when every operand is one run).
#pragma once

#include "compute_device.hpp"
#include "compute_ops.hpp"
#include "geometry.hpp"

#include <backplane/sdk/kernel.hpp>

#include <cstdint>
#include <cstring>
#include <span>

namespace bp::clk {

void set_device_lookup(DeviceLookup lookup, const bp_host_api* host);
const bp_host_api* host();

// Runs a kernel body at the C boundary: exceptions become a status and a message.
template <typename Body>
bp_status guarded(Body&& body) noexcept {
  return sdk::guard(host(), body);
}

// Argument i of a call as a tensor (throws when it is not one).
const bp_tensor& tensor_arg(const bp_call* call, size_t i);
// The int[] argument `i` (stride, padding, ...) as a span over the call's list.
inline std::span<const int64_t> int_list_arg(const bp_call* call, size_t i) {
  return {call->args[i].u.list.items.ints, call->args[i].u.list.count};
}
// The call's (only) output.
const bp_tensor& output(const bp_call* call);
// The context the SDK's typed kernels get, for device_for().
inline sdk::KernelContext context_of(const bp_call* call) {
  return {call, host()};
}
// The call's device; throws when the index names none, or when `dtype` is f64 and the
// device has no fp64.
ComputeDevice& device_for(const sdk::KernelContext& ctx, bp_dtype dtype);

// A tensor that views `t`'s memory with other sizes and strides (a slice or a broadcast),
// owning its arrays.
struct TensorView {
  bp_tensor t{};
  int64_t shape[64];
  int64_t strides[64];
  TensorView(const bp_tensor& base, int32_t ndim, const int64_t* sizes, const int64_t* strides);
  TensorView(const TensorView&) = delete;
  TensorView& operator=(const TensorView&) = delete;
  const bp_tensor* get() const { return &t; }
};

// The program variant of a dtype ("f32"): sdk::dtype_name.
const char* variant(bp_dtype dtype);

// A scalar in the compute type of variant `dtype` (opencl-c-kernels/prelude.h's C: float for
// f16/bf16/f32, double for f64, the integer type itself, uchar for bool), as kernel argument bytes.
struct ScalarValue {
  alignas(8) unsigned char bytes[8] = {};
  size_t size = 0;
  KernelArg arg() const { return {KernelArg::Value, bytes, size}; }
};
// The bytes of `v` itself (a value of the kernel parameter's exact type).
template <typename V>
ScalarValue bytes_of(V v) {
  static_assert(sizeof(V) <= 8);
  ScalarValue s;
  std::memcpy(s.bytes, &v, sizeof v);
  s.size = sizeof v;
  return s;
}
ScalarValue scalar_value(bp_dtype dtype, const sdk::Scalar& value);
ScalarValue scalar_value(bp_dtype dtype, double value);
ScalarValue int_value(bp_dtype dtype, int64_t value);

// Device memory for one call's temporaries, released on scope exit.
class DeviceBuffer {
 public:
  DeviceBuffer(ComputeDevice& device, size_t bytes)
      : device_(device), address_(device.allocate(bytes)) {}
  ~DeviceBuffer() { device_.release(address_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* address() const { return address_; }

 private:
  ComputeDevice& device_;
  void* address_;
};

// The work-group size of elementwise launches: one fixed size, so that drivers compiling a
// kernel per group size (PoCL) compile it once, and a multiple of every GPU's SIMD width.
// Launches round up to whole groups; kernels skip work-items at or past `n`.
inline constexpr size_t kElementwiseGroup = 256;
size_t elementwise_group(const ComputeDevice& device);
// `n` work-items rounded up to whole elementwise groups.
LaunchRange whole_groups(const ComputeDevice& device, int64_t n);

// Launches `name` of `program` (variant `dtype`) over `tensors` (the output first, all of
// the output's shape, at most kMaxOperands), then the `extra` arguments. The kernel pair
// follows opencl-c-kernels/elementwise.cl's convention: `name(buffers..., bp_geom g, long n,
// extra...)` (skips work-items past n) and, when every operand is one dense run,
// `name_contig(buffers..., long offsets..., extra...)` (no bounds check: launched over whole
// groups, then over the remainder in groups of one at shifted offsets). `StridedOnly` for
// kernels without a dense twin (arange: its value depends on the index). Nothing runs for
// an empty output.
enum class Layouts { DenseAndStrided, StridedOnly };
void launch_elementwise(ComputeDevice& device, const char* program, bp_dtype dtype,
                        const char* name, std::span<const bp_tensor* const> tensors,
                        std::span<const KernelArg> extra = {},
                        Layouts layouts = Layouts::DenseAndStrided);

}  // namespace bp::clk
