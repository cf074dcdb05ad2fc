// The meta-rule helpers declared in meta_util.hpp: argument access, dtype checks and
// promotion, scalar range checks, broadcasting and dim canonicalisation.
#include "meta_util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace bp::ops {
namespace {

// numpy broadcasting of two shapes; nullopt when they are incompatible.
std::optional<Shape> try_broadcast(IntArrayRef a, IntArrayRef b) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    // Align from the right; a missing dim acts as size 1.
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::string quoted_list(std::span<const std::string_view> names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " and " : ", ";
    out += fmt::format("'{}'", names[i]);
  }
  return out;
}

std::string dtype_list(DtypeMask mask) {
  std::string out;
  for (int code = 0; code < kNumScalarTypes; ++code) {
    const auto t = static_cast<ScalarType>(code);
    if ((mask & dtype_bit(t)) == 0) continue;
    if (!out.empty()) out += ", ";
    out += dtype_name(t);
  }
  return out;
}

}  // namespace

// Largest finite value of a floating dtype.
double max_finite(ScalarType t) {
  switch (t) {
    case ScalarType::Float16:
      return 65504.0;
    case ScalarType::BFloat16:
      return 3.3895313892515355e38;
    case ScalarType::Float32:
      return static_cast<double>(std::numeric_limits<float>::max());
    default:
      return std::numeric_limits<double>::max();
  }
}

// [lowest, max] of an integral dtype.
std::pair<int64_t, int64_t> integral_range(ScalarType t) {
  switch (t) {
    case ScalarType::Int8:
      return {INT8_MIN, INT8_MAX};
    case ScalarType::UInt8:
      return {0, UINT8_MAX};
    case ScalarType::Int16:
      return {INT16_MIN, INT16_MAX};
    case ScalarType::Int32:
      return {INT32_MIN, INT32_MAX};
    default:
      return {INT64_MIN, INT64_MAX};
  }
}

std::string_view arg_name(const OpDef& op, size_t i) {
  return i < op.schema.arguments.size() ? std::string_view(op.schema.arguments[i].name)
                                        : std::string_view("?");
}

const Tensor& tensor_arg(const OpDef& op, std::span<const IValue> args, size_t i) {
  BP_CHECK(i < args.size(), ErrorCode::Internal, "{}: argument {} is missing ({} given)", op.name,
           i, args.size());
  const IValue& v = args[i];
  BP_CHECK(v.is_tensor(), ErrorCode::InvalidArgument, "{}: argument '{}' must be a Tensor, got {}",
           op.name, arg_name(op, i), v.kind_name());
  const Tensor& t = v.tensor();
  BP_CHECK(t.defined(), ErrorCode::InvalidArgument, "{}: argument '{}' is an undefined tensor",
           op.name, arg_name(op, i));
  return t;
}

const Tensor* optional_tensor_arg(const OpDef& op, std::span<const IValue> args, size_t i) {
  BP_CHECK(i < args.size(), ErrorCode::Internal, "{}: argument {} is missing ({} given)", op.name,
           i, args.size());
  const IValue& v = args[i];
  if (v.is_none()) return nullptr;
  BP_CHECK(v.is_tensor(), ErrorCode::InvalidArgument,
           "{}: argument '{}' must be a Tensor or None, got {}", op.name, arg_name(op, i),
           v.kind_name());
  return v.tensor().defined() ? &v.tensor() : nullptr;
}

void add_to_result_type(ResultTypeState& state, const Tensor& t) {
  state.add_tensor(t.dtype(), t.dim(), t.is_wrapped_number());
}

ScalarType result_type(const OpDef& op, std::span<const IValue> args,
                       std::initializer_list<size_t> indices) {
  ResultTypeState state;
  for (size_t i : indices) add_to_result_type(state, tensor_arg(op, args, i));
  return state.result();
}

void request_conversion(MetaResult& r, std::span<const IValue> args,
                        std::initializer_list<size_t> indices) {
  auto differs = [&](const Tensor& t) { return t.defined() && t.dtype() != r.compute_dtype; };
  for (size_t i : indices) {
    const IValue& v = args[i];
    bool convert = false;
    if (v.is_tensor()) {
      convert = differs(v.tensor());
    } else if (v.is_tensor_list()) {
      convert = std::any_of(v.tensor_list().begin(), v.tensor_list().end(), differs);
    }
    if (convert) r.convert_mask |= uint32_t{1} << i;
  }
}

void check_not_bool(const OpDef& op, std::string_view subject, ScalarType dtype,
                    std::string_view hint) {
  BP_CHECK(dtype != ScalarType::Bool, ErrorCode::Type,
           "{}: bool tensors are not supported ({} is bool){}{}", op.name, subject,
           hint.empty() ? "" : "; ", hint);
}

void check_floating(const OpDef& op, std::string_view subject, ScalarType dtype) {
  BP_CHECK(is_floating(dtype), ErrorCode::Type,
           "{}: only floating-point tensors are supported ({} is {})", op.name, subject,
           dtype_name(dtype));
}

void check_dtype_in(const OpDef& op, std::string_view subject, ScalarType dtype,
                    DtypeMask allowed) {
  BP_CHECK(is_valid(dtype) && (allowed & dtype_bit(dtype)) != 0, ErrorCode::Type,
           "{}: {} has dtype {}; supported: {}", op.name, subject, dtype_name(dtype),
           dtype_list(allowed));
}

bool scalar_fits(const Scalar& value, ScalarType dtype) {
  if (dtype == ScalarType::Bool || value.is_bool()) return true;
  if (is_integral(dtype)) {
    const auto [lo, hi] = integral_range(dtype);
    if (value.is_integral()) {
      const int64_t i = value.to_int();
      // PyTorch lets negative integers wrap into unsigned types down to -max.
      if (dtype == ScalarType::UInt8) return i >= -hi && i <= hi;
      return i >= lo && i <= hi;
    }
    const double d = value.to_double();
    if (std::isnan(d)) return false;
    // 2^63 is representable as a double but not as an int64.
    if (dtype == ScalarType::Int64) return d >= -0x1p63 && d < 0x1p63;
    return d >= static_cast<double>(lo) && d <= static_cast<double>(hi);
  }
  const double d = value.to_double();
  if (std::isnan(d) || std::isinf(d)) return value.is_floating();
  return std::fabs(d) <= max_finite(dtype);
}

void check_scalar_fits(const OpDef& op, std::string_view arg, const Scalar& value,
                       ScalarType dtype) {
  BP_CHECK(scalar_fits(value, dtype), ErrorCode::InvalidArgument,
           "{}: argument '{}' = {} cannot be converted to {} without overflow", op.name, arg,
           value.str(), dtype_name(dtype));
}

// A kernel writing through a view with a stride-0 dim of size > 1 would write one memory
// location from several elements (a race on parallel devices); PyTorch refuses it too.
void check_no_internal_overlap(const OpDef& op, size_t i, const Tensor& t) {
  for (int64_t d = 0; d < t.dim(); ++d) {
    BP_CHECK(t.size(d) <= 1 || t.stride(d) != 0, ErrorCode::InvalidArgument,
             "{}: argument '{}' ({}) has a dim of size {} with stride 0, so several of its "
             "elements share one memory location; write to a contiguous copy instead",
             op.name, arg_name(op, i), t.meta_str(), t.size(d));
  }
}

int64_t check_reduction_arg(const OpDef& op, std::span<const IValue> args, size_t i) {
  const int64_t reduction = args[i].to_int();
  BP_CHECK(reduction >= kReductionNone && reduction <= kReductionSum, ErrorCode::InvalidArgument,
           "{}: argument 'reduction' is {}, but it must be 0 (none), 1 (mean) or 2 (sum)", op.name,
           reduction);
  return reduction;
}

Shape broadcast_args(const OpDef& op, std::span<const IValue> args,
                     std::initializer_list<size_t> indices) {
  Shape out;
  boost::container::small_vector<std::string_view, 4> names;
  for (size_t i : indices) {
    const Tensor& t = tensor_arg(op, args, i);
    if (names.empty()) {
      out = t.sizes();
    } else {
      std::optional<Shape> b = try_broadcast(as_ref(out), as_ref(t.sizes()));
      if (!b) {
        if (names.size() == 1) {
          BP_FAIL(ErrorCode::Shape,
                  "{}: argument '{}' has shape {} which cannot broadcast with '{}' of shape {}",
                  op.name, arg_name(op, i), shape_str(as_ref(t.sizes())), names[0],
                  shape_str(as_ref(out)));
        }
        BP_FAIL(ErrorCode::Shape,
                "{}: argument '{}' has shape {} which cannot broadcast with the shape {} "
                "broadcast from {}",
                op.name, arg_name(op, i), shape_str(as_ref(t.sizes())), shape_str(as_ref(out)),
                quoted_list({names.data(), names.size()}));
      }
      out = std::move(*b);
    }
    names.push_back(arg_name(op, i));
  }
  return out;
}

void expand_args(std::span<IValue> args, std::initializer_list<size_t> indices, IntArrayRef shape) {
  for (size_t i : indices) {
    const Tensor& t = args[i].tensor();
    if (!std::equal(t.sizes().begin(), t.sizes().end(), shape.begin(), shape.end())) {
      args[i] = IValue(t.expand(shape));
    }
  }
}

bool broadcasts_to(IntArrayRef from, IntArrayRef to) {
  if (from.size() > to.size()) return false;
  const size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] != 1 && from[i] != to[lead + i]) return false;
  }
  return true;
}

int64_t wrap_dim_arg(const OpDef& op, std::span<IValue> args, size_t i, int64_t ndim) {
  const int64_t dim = wrap_dim(args[i].to_int(), ndim, op.name, arg_name(op, i));
  args[i] = IValue(dim);
  return dim;
}

Shape canonicalize_dims_arg(const OpDef& op, std::span<IValue> args, size_t i, int64_t ndim) {
  Shape dims;
  if (!args[i].is_none()) {
    const Shape& given = args[i].int_list();
    for (int64_t d : given) dims.push_back(wrap_dim(d, ndim, op.name, arg_name(op, i)));
    std::sort(dims.begin(), dims.end());
    const auto dup = std::adjacent_find(dims.begin(), dims.end());
    BP_CHECK(dup == dims.end(), ErrorCode::InvalidArgument,
             "{}: dim {} appears more than once in argument '{}' {}", op.name, *dup,
             arg_name(op, i), shape_str(as_ref(given)));
  }
  if (ndim == 0) {
    dims.clear();
  } else if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) dims.push_back(d);
  }
  args[i] = IValue(dims);
  return dims;
}

Shape reduced_shape(IntArrayRef sizes, IntArrayRef dims, bool keepdim) {
  Shape out;
  size_t next = 0;  // dims is sorted: walk it alongside sizes
  for (size_t d = 0; d < sizes.size(); ++d) {
    const bool reduced = next < dims.size() && dims[next] == static_cast<int64_t>(d);
    if (reduced) ++next;
    if (!reduced) {
      out.push_back(sizes[d]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  return out;
}

// The output of reducing `self` over the sorted `dims`: the user's shape (keepdim or not)
// and, when it differs, the keepdim shape the kernel sees.
TensorMeta reduction_output(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype) {
  TensorMeta out;
  out.dtype = dtype;
  out.sizes = reduced_shape(as_ref(self.sizes()), dims, keepdim);
  Shape kept = keepdim_shape(as_ref(self.sizes()), dims);
  if (kept != out.sizes) out.kernel_sizes = std::move(kept);
  return out;
}

MetaResult norm_results(IntArrayRef first, IntArrayRef stats, ScalarType dtype) {
  MetaResult r;
  r.compute_dtype = dtype;
  r.outputs.push_back(TensorMeta{Shape(first.begin(), first.end()), dtype, std::nullopt});
  r.outputs.push_back(TensorMeta{Shape(stats.begin(), stats.end()), dtype, std::nullopt});
  r.outputs.push_back(TensorMeta{Shape(stats.begin(), stats.end()), dtype, std::nullopt});
  return r;
}

}  // namespace bp::ops
