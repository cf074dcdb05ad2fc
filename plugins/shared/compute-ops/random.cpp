// The random ops on the shared kernels (core/src/ops/random.cpp): uniform_, normal_ and
// random_.from, on random.cl. One work item per element of self in row-major order (the
// geometry keeps that order, so strided launches only); each computes its element from the
// Philox block at (seed, offset + i) as sdk/philox.hpp does, so the result is the
// reference's on every device. normal_ computes in double: it is registered when some
// device has fp64, and a device without it refuses the call.
#include "ops_internal.hpp"

#include <backplane/sdk/philox.hpp>

namespace bp::clk {
namespace {

constexpr const char* kRandomProgram = "random";

// The position arguments every random kernel takes after self's geometry.
struct Position {
  ScalarValue seed, offset;
  Position(const bp_call* c, size_t seed_arg)
      : seed(bytes_of(static_cast<uint64_t>(c->args[seed_arg].u.i))),
        offset(bytes_of(static_cast<uint64_t>(c->args[seed_arg + 1].u.i))) {}
};

void launch_random(const bp_call* c, ComputeDevice& device, const char* kernel,
                   std::span<const KernelArg> values) {
  const bp_tensor& self = tensor_arg(c, 0);
  const bp_tensor* tensors[] = {&self};
  launch_elementwise(device, kRandomProgram, self.dtype, kernel, tensors, values,
                     Layouts::StridedOnly);
}

// from and to as the kernel's bounds: doubles for f64, else floats holding them rounded to
// self's dtype (PyTorch's CPU transform computes in float from dtype-rounded bounds).
ScalarValue uniform_bound(bp_dtype dtype, double v) {
  if (dtype == BP_DTYPE_F64) return bytes_of(v);
  return sdk::visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sdk::kIsFloating<T>)
      return bytes_of(static_cast<float>(sdk::convert<T>(v)));
    else
      return bytes_of(static_cast<float>(v));  // not registered for other dtypes
  });
}

// uniform_(Tensor(a!) self, float from, float to, *, int seed, int offset)
bp_status uniform_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    ComputeDevice& device = device_for(context_of(c), self.dtype);
    const Position at(c, 3);
    const ScalarValue lo = uniform_bound(self.dtype, sdk::Scalar(c->args[1]).to_double());
    const ScalarValue hi = uniform_bound(self.dtype, sdk::Scalar(c->args[2]).to_double());
    const KernelArg values[] = {at.seed.arg(), at.offset.arg(), lo.arg(), hi.arg()};
    launch_random(c, device, "uniform_", values);
  });
}

// normal_(Tensor(a!) self, float mean, float std, *, int seed, int offset)
bp_status normal_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    ComputeDevice& device = device_for(context_of(c), self.dtype);
    if (!device.has_fp64())
      throw sdk::Error(BP_ERR_UNSUPPORTED,
                       "normal_: the device has no fp64 (cl_khr_fp64), which its Box-Muller "
                       "transform computes in so that every device gives the same values");
    const Position at(c, 3);
    const ScalarValue mean = bytes_of(sdk::Scalar(c->args[1]).to_double());
    const ScalarValue std = bytes_of(sdk::Scalar(c->args[2]).to_double());
    const KernelArg values[] = {at.seed.arg(), at.offset.arg(), mean.arg(), std.arg()};
    launch_random(c, device, "normal_", values);
  });
}

// random_.from(Tensor(a!) self, int from, int? to, *, int seed, int offset)
bp_status random_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    ComputeDevice& device = device_for(context_of(c), self.dtype);
    const std::optional<int64_t> to =
        c->args[2].tag == BP_VALUE_NONE ? std::nullopt : std::optional(c->args[2].u.i);
    const sdk::philox::IntegerRange r = sdk::philox::integer_range(self.dtype, c->args[1].u.i, to);
    const Position at(c, 3);
    const ScalarValue range = bytes_of(r.range), from = bytes_of(r.from);
    const ScalarValue full = bytes_of(static_cast<int32_t>(r.full));
    const KernelArg values[] = {at.seed.arg(), at.offset.arg(), range.arg(), from.arg(),
                                full.arg()};
    launch_random(c, device, "random_from", values);
  });
}

}  // namespace

void register_random(OpRegistrar& ops) {
  ops.add("uniform_", BP_DTYPES_FLOATING, uniform_kernel);
  if (ops.any_device_has_fp64()) ops.add("normal_", BP_DTYPES_FLOATING, normal_kernel);
  ops.add("random_.from", BP_DTYPES_ALL, random_kernel);
}

}  // namespace bp::clk
