// The template device's kernels and the function that registers them. Each kernel is the
// out-variant of its op: the op's arguments in schema order, then the outputs, which the
// runtime has already allocated with the op's shape and dtype (docs/ops.md, "What a kernel
// receives").
#pragma once

#include <backplane/sdk/sdk.hpp>

#include <cstdint>
#include <optional>

namespace template_device {

// copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)
// Into an f32 tensor from a tensor of any dtype. Needed by every plugin with more than one
// op: the runtime converts an input to the op's compute dtype with the device's copy_ (an
// add of an i32 and an f32 tensor adds in f32), so without it such calls fail, and the
// conformance suite reports those cases "blocked: needs copy_".
void copy_f32(bp::sdk::TensorArg self, bp::sdk::TensorArg src, bool non_blocking);
// fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)
// Every element of an f32 tensor (any strides) set to `value`, which the runtime has
// already checked fits f32.
void fill_f32(bp::sdk::TensorArg self, bp::sdk::Scalar value);
// add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
void add_f32(bp::sdk::TensorArg self, bp::sdk::TensorArg other, bp::sdk::Scalar alpha,
             bp::sdk::TensorArg out);
// mul.Tensor(Tensor self, Tensor other) -> Tensor
void mul_f32(bp::sdk::TensorArg self, bp::sdk::TensorArg other, bp::sdk::TensorArg out);
// relu(Tensor self) -> Tensor
void relu_f32(bp::sdk::TensorArg self, bp::sdk::TensorArg out);

// sum.dim_IntList(Tensor self, int[]? dim, bool keepdim=False, *, ScalarType? dtype=None)
//   -> Tensor
// The reduction example: the runtime hands the kernel `out` with the keepdim shape (self's
// rank, size 1 in every reduced dim), so `dim` and `keepdim` need no reading of their own.
void sum_f32(bp::sdk::TensorArg self, std::optional<bp::sdk::IntList> dim, bool keepdim,
             std::optional<bp_dtype> dtype, bp::sdk::TensorArg out);

// Registers the kernels above for `backend` (f32 outputs only: other dtypes of these ops
// then fail with an error naming the op, the device and the backends that have it).
void register_kernels(bp::sdk::Host& host, uint32_t backend);

}  // namespace template_device
