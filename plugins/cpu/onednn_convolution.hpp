// oneDNN's convolution primitives for the CPU plugin's convolution kernels (convolution.cpp):
// forward (with bias), backward data and backward weights on dense f32 buffers in
// PyTorch's layout (NCHW input and output, OIHW weight). oneDNN picks its own blocked
// layouts; the operands are reordered into them and the result back, as PyTorch's CPU
// convolution does with the same library. The library is the one onednn() opened (dlopen,
// the ISA cap applied first); its convolution API is looked up on the first call. Each thread
// keeps the primitives it created per geometry for its next calls (onednn_convolution.cpp).
#pragma once

#include <backplane/sdk/convolution.hpp>

#include <string>

namespace bp::cpu {

enum class ConvDirection { kForward, kBackwardData, kBackwardWeights };

// The dense f32 operands of one call. Forward reads src, weights and bias (may be null) and
// writes result (dst); backward data reads diff_dst and weights and writes result
// (diff_src); backward weights reads src and diff_dst and writes result (diff_weights).
struct ConvBuffers {
  const float* src = nullptr;
  const float* weights = nullptr;
  const float* bias = nullptr;
  const float* diff_dst = nullptr;
  float* result = nullptr;
};

// Runs the convolution; returns "" on success, else why oneDNN could not (the library or a
// symbol is missing, or a call failed), and the caller computes it another way.
std::string onednn_convolution(ConvDirection direction, const sdk::ConvGeometry& g,
                               const ConvBuffers& buffers);

}  // namespace bp::cpu
