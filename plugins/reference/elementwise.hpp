// Private header of the reference backend's elementwise kernels (copy.cpp, unary.cpp,
// binary.cpp): the store and shape helpers the kernels share, and IEEE division. The
// dtype conversions (PyTorch's rules) and the checked conversion of Scalar arguments are
// the SDK's (backplane/sdk/convert.hpp). docs/reference.md describes the conversion rules
// and where they differ from PyTorch.
#pragma once

#include "reference.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace bp::reference {

// Writes `v` (a value of the kernel's compute type T) into element `idx` of `out`,
// converting to out's dtype when an out= tensor of another dtype was passed.
template <typename T>
void store(const StridedView& out, const int64_t* idx, T v) {
  visit_dtype(out.dtype, [&](auto tag) {
    using O = typename decltype(tag)::type;
    out.at<O>(idx) = convert<O>(v);
  });
}

// ---- shape checks -----------------------------------------------------------------------
// The host expands elementwise inputs to the output's shape and converts them to the
// compute dtype (docs/ops.md); a kernel handed anything else reports it instead of reading
// out of bounds.
inline void check_shape(const KernelContext& ctx, const char* arg_name, const StridedView& arg,
                        const StridedView& out) {
  bool same = arg.ndim == out.ndim;
  for (int32_t d = 0; same && d < arg.ndim; ++d) same = arg.shape[d] == out.shape[d];
  if (!same)
    throw Error(BP_ERR_INVALID_ARGUMENT,
                std::string(ctx.op_name()) + ": argument '" + arg_name + "' has shape " +
                    sdk::shape_text(arg) + " but the output has shape " + sdk::shape_text(out) +
                    "; the reference backend expects inputs expanded to the output shape");
}

// a / b with IEEE 754 results, division by zero included (+-inf, or NaN for 0/0 and NaN/0),
// spelled out because C++ leaves floating division by zero undefined.
inline double ieee_div(double a, double b) {
  if (b != 0.0) return a / b;
  if (a == 0.0 || std::isnan(a)) return std::numeric_limits<double>::quiet_NaN();
  const bool negative = std::signbit(a) != std::signbit(b);
  return negative ? -std::numeric_limits<double>::infinity()
                  : std::numeric_limits<double>::infinity();
}

// Whether v is nonzero (NaN is nonzero), as logical ops and conversions to bool see it.
template <typename T>
bool nonzero(T v) {
  if constexpr (kIsFloating<T>)
    return to_double(v) != 0.0;
  else
    return v != 0;
}

}  // namespace bp::reference
