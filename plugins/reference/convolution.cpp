// Reference kernels of the convolution primitives (convolution_forward,
// convolution_backward_input, convolution_backward_weight): the SDK's direct loops
// (sdk/convolution.hpp) over the whole result, one element at a time. Floating products
// are summed in double and rounded once (the forward's bias included); integer products
// in uint64, wrapping as PyTorch's. Kernels receive 4-D tensors.
#include "reference.hpp"

#include <backplane/sdk/convolution.hpp>

#include <optional>

namespace bp::reference {
namespace {

using sdk::ConvGeometry;
using sdk::IntList;

// The whole result on one thread.
constexpr auto kSerial = [](int64_t n, int64_t, auto&& body) { body(int64_t{0}, n); };

void forward_kernel(StridedView input, StridedView weight, std::optional<sdk::TensorArg> bias,
                    IntList stride, IntList padding, IntList dilation, int64_t groups,
                    StridedView out) {
  const char* op = "convolution_forward";
  const ConvGeometry g =
      sdk::check_convolution(op, input, weight, out, stride, padding, dilation, groups);
  std::optional<StridedView> b;
  if (bias) b.emplace(*bias);
  sdk::check_convolution_bias(op, b ? &*b : nullptr, g, out.dtype);
  sdk::convolution_forward_direct(g, input, weight, b ? &*b : nullptr, out, kSerial);
}

void backward_input_kernel(StridedView grad_output, StridedView weight, IntList, IntList stride,
                           IntList padding, IntList dilation, int64_t groups, StridedView out) {
  const ConvGeometry g = sdk::check_convolution("convolution_backward_input", out, weight,
                                                grad_output, stride, padding, dilation, groups);
  sdk::convolution_backward_input_direct(g, grad_output, weight, out, kSerial);
}

void backward_weight_kernel(StridedView grad_output, StridedView input, IntList, IntList stride,
                            IntList padding, IntList dilation, int64_t groups, StridedView out) {
  const ConvGeometry g = sdk::check_convolution("convolution_backward_weight", input, out,
                                                grad_output, stride, padding, dilation, groups);
  sdk::convolution_backward_weight_direct(g, grad_output, input, out, kSerial);
}

}  // namespace

void register_convolution_kernels(sdk::Registrar& r) {
  r.kernel<forward_kernel>("convolution_forward", sdk::kAllButBool)
      .kernel<backward_input_kernel>("convolution_backward_input", sdk::kAllButBool)
      .kernel<backward_weight_kernel>("convolution_backward_weight", sdk::kAllButBool);
}

}  // namespace bp::reference
