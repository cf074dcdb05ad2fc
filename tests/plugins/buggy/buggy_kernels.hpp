// Kernels of the buggy fixture plugins (tests/plugins/buggy/): a small set of correct f32
// kernels over host memory, and one wrong variant per bug the conformance suite must catch.
// Which bug a library carries is chosen at compile time (BP_BUGGY_BUG, see buggy_plugin.cpp);
// every other kernel it registers is correct, so the suite's report must name that one.
#pragma once

#include <backplane/sdk/sdk.hpp>

#include <cstdint>

namespace bp_buggy {

enum class Bug {
  Oob,                  // add.Tensor f32 writes one element past the end of its output
  F16Rounding,          // add.Tensor f16 rounds the float result toward zero instead of to nearest
  NanMax,               // maximum f32 is `a > b ? a : b`: a NaN in `self` is dropped
  Strides,              // neg / relu f32 read their input as if it were contiguous
  Broadcast,            // add.Tensor f32 reads a broadcast input at flat index % its own size
  Segfault,             // neg f32 writes through a null pointer
  Hang,                 // exp f32 never returns
  LeakyRelu,            // relu f32 is leaky_relu's kernel: negatives become 0.01 x instead of 0
  Device,               // device API bugs only (buggy_device.hpp); every kernel is correct
  NondeterministicExp,  // exp f32 gives one ulp more on every other call
  DenseTail,  // add.Tensor f32's dense entry (ABI 1.3) copies self in its tail: the kernel
              // is right, so only contiguous calls, which take the dense entry, are wrong
  // Backward kernels (buggy_gradients.cpp), f32 and f64, caught by the op's cases and by the
  // gradient checks:
  TanhBackwardSign,     // tanh_backward is grad * (1 + y^2): a wrong sign
  SigmoidBackwardTerm,  // sigmoid_backward is grad * y: the (1 - y) term dropped
  SoftmaxBackwardDim,   // _softmax_backward_data reduces over the last dim, not `dim`
};

// Registers the plugin's kernels on `backend`: the correct set (copy_ for every dtype, which
// the suite needs to lay out strided inputs; add.Tensor, mul.Tensor, neg, relu, maximum,
// exp for f32) with the kernel of `bug` in place of the correct one.
void register_kernels(bp::sdk::Host& host, uint32_t backend, Bug bug);

// A library with a backward bug also registers tanh_backward, sigmoid_backward and a fused
// _softmax_backward_data (f32, f64), the bug's one wrong; the others register none.
void register_gradient_kernels(bp::sdk::Registrar& r, Bug bug);

}  // namespace bp_buggy
