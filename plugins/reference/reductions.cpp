// Reference kernels for the reductions: sum.dim_IntList, prod.dim_int, amax, amin, argmax,
// argmin, all.dim, any.dim. The meta rule hands every kernel its output in the keepdim shape
// (same ndim as the input, size 1 in each reduced dim) and its dims wrapped and explicit, so
// one loop serves all of them: for each output element, collect the input elements of its
// reduced sub-space in row-major order and fold them. Floating results accumulate in double
// and are rounded once; integer results wrap exactly like PyTorch (uint64 arithmetic).
#include "elementwise.hpp"  // convert(): PyTorch's element casts, shared with copy_
#include "reference.hpp"

#include <cmath>
#include <span>
#include <string>
#include <vector>

namespace bp::reference {
namespace {

// An integral (or bool) value as a two's-complement uint64, for wrap-around arithmetic.
template <typename T>
uint64_t as_u64(T v) {
  return static_cast<uint64_t>(static_cast<int64_t>(v));
}

// The value by which elements of T are ordered: exact for every integer type.
template <typename T>
auto order_key(T v) {
  if constexpr (kIsFloating<T>)
    return to_double(v);
  else
    return static_cast<int64_t>(v);
}

// ---- which dims are reduced --------------------------------------------------------------
// Reads the dim argument (INT_LIST, INT, or NONE = every dim) and checks that `out` has the
// keepdim shape of that reduction. A 0-d input accepts dim 0 (reducing it is a no-op).
bp_status reduced_dims(const bp_call* c, size_t dim_arg, const char* op, const View& in,
                       const View& out, std::vector<bool>& reduced) {
  reduced.assign(static_cast<size_t>(in.ndim), false);
  std::vector<int64_t> dims;
  const bp_value& v = c->args[dim_arg];
  if (v.tag == BP_VALUE_INT_LIST) {
    dims.assign(v.u.list.items.ints, v.u.list.items.ints + v.u.list.count);
  } else if (v.tag == BP_VALUE_INT) {
    dims.push_back(v.u.i);
  } else if (v.tag == BP_VALUE_NONE) {
    reduced.assign(static_cast<size_t>(in.ndim), true);
  } else {
    return fail(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": argument 'dim' has tag " +
                                             std::to_string(v.tag) + ", expected int or int[]");
  }
  for (int64_t d : dims) {
    if (in.ndim == 0 && d == 0) continue;
    if (d < 0 || d >= in.ndim)
      return fail(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": dim " + std::to_string(d) +
                                               " is out of range for an input of shape " +
                                               shape_text(in) + " (dims reach kernels wrapped)");
    reduced[static_cast<size_t>(d)] = true;
  }
  bool shape_ok = out.ndim == in.ndim;
  for (int32_t d = 0; shape_ok && d < in.ndim; ++d)
    shape_ok = out.shape[d] == (reduced[static_cast<size_t>(d)] ? 1 : in.shape[d]);
  if (!shape_ok)
    return fail(BP_ERR_INVALID_ARGUMENT,
                std::string(op) + ": output of shape " + shape_text(out) +
                    " is not the keepdim shape of reducing an input of shape " + shape_text(in));
  return BP_OK;
}

// The reduction's groups: for every output element (row-major over `out`), its offset and
// the offsets of the input elements reduced into it, in row-major order of the input (so the
// position in a group is the index along a single reduced dim, or the flat index when every
// dim is reduced). Every group has the same size, the product of the reduced sizes. Built
// once per call by plain (non-template) code: the typed loops below are instantiated for
// every pair of dtypes, and walking the index space inside each of them made this one file
// take about a minute to compile.
struct ReductionGroups {
  std::vector<int64_t> out_offsets;
  std::vector<int64_t> in_offsets;  // group g is [g * group_size, (g + 1) * group_size)
  int64_t group_size = 0;

  size_t count() const { return out_offsets.size(); }
  std::span<const int64_t> group(size_t g) const {
    const size_t n = static_cast<size_t>(group_size);
    return {in_offsets.data() + g * n, n};
  }
};

ReductionGroups reduction_groups(const View& in, const View& out,
                                 const std::vector<bool>& reduced) {
  ReductionGroups groups;
  std::vector<int64_t> rshape(static_cast<size_t>(in.ndim));
  groups.group_size = 1;
  for (int32_t d = 0; d < in.ndim; ++d) {
    rshape[static_cast<size_t>(d)] = reduced[static_cast<size_t>(d)] ? in.shape[d] : 1;
    groups.group_size *= rshape[static_cast<size_t>(d)];
  }
  for_each_index(out.ndim, out.shape, [&](const int64_t* oidx) {
    int64_t base = 0;
    for (int32_t d = 0; d < in.ndim; ++d)
      if (!reduced[static_cast<size_t>(d)]) base += oidx[d] * in.strides[d];
    groups.out_offsets.push_back(out.offset_of(oidx));
    for_each_index(in.ndim, rshape.data(), [&](const int64_t* ridx) {
      int64_t off = base;
      for (int32_t d = 0; d < in.ndim; ++d)
        if (reduced[static_cast<size_t>(d)]) off += ridx[d] * in.strides[d];
      groups.in_offsets.push_back(off);
    });
  });
  return groups;
}

// Calls f(out_offset, in_offsets) for every group.
template <typename F>
void for_each_group(const ReductionGroups& groups, F&& f) {
  for (size_t g = 0; g < groups.count(); ++g) f(groups.out_offsets[g], groups.group(g));
}

// ---- sum and prod --------------------------------------------------------------------------
// Each element is first cast to the output dtype (as PyTorch casts the input for `dtype=`),
// then folded: in double for floating outputs (rounded once at the end), in uint64 for
// integral and bool outputs (wrapped at the end; for bool, sum is `or` and prod is `and`).
template <bool kProd>
bp_status sum_or_prod(const bp_call* c, const char* op) {
  const View in(arg_tensor(c, 0)), out(out_tensor(c));
  std::vector<bool> reduced;
  if (bp_status s = reduced_dims(c, 1, op, in, out, reduced); s != BP_OK) return s;
  const ReductionGroups groups = reduction_groups(in, out, reduced);
  visit_dtype(in.dtype, [&](auto itag) {
    using I = typename decltype(itag)::type;
    visit_dtype(out.dtype, [&](auto otag) {
      using O = typename decltype(otag)::type;
      for_each_group(groups, [&](int64_t o, std::span<const int64_t> offs) {
        if constexpr (kIsFloating<O>) {
          double acc = kProd ? 1.0 : 0.0;
          for (int64_t off : offs) {
            const double x = to_double(convert<O>(in.at_offset<I>(off)));
            acc = kProd ? acc * x : acc + x;
          }
          out.at_offset<O>(o) = from_double<O>(acc);
        } else {
          uint64_t acc = kProd ? 1 : 0;
          for (int64_t off : offs) {
            const uint64_t x = as_u64(convert<O>(in.at_offset<I>(off)));
            acc = kProd ? acc * x : acc + x;
          }
          out.at_offset<O>(o) = wrap_int<O>(acc);
        }
      });
    });
  });
  return BP_OK;
}

bp_status sum_kernel(const bp_call* c) {
  return sum_or_prod<false>(c, "sum.dim_IntList");
}
bp_status prod_kernel(const bp_call* c) {
  return sum_or_prod<true>(c, "prod.dim_int");
}

// ---- amax/amin and argmax/argmin -----------------------------------------------------------
// Finds, in one reduced list, the position of the extreme element: the first NaN if there is
// one (NaN propagates / wins), else the first of the equal extremes.
template <bool kMax, typename T>
size_t extreme_position(const View& in, std::span<const int64_t> offs) {
  size_t best = 0;
  auto best_key = order_key(in.at_offset<T>(offs[0]));
  for (size_t k = 1; k < offs.size(); ++k) {
    if (best_key != best_key) break;  // a NaN is already chosen
    const auto key = order_key(in.at_offset<T>(offs[k]));
    if (key != key || (kMax ? key > best_key : key < best_key)) {
      best = k;
      best_key = key;
    }
  }
  return best;
}

bp_status empty_extreme(const char* op, const View& in) {
  return fail(BP_ERR_INVALID_ARGUMENT, std::string(op) +
                                           ": cannot reduce over a dimension of size 0 "
                                           "(input shape " +
                                           shape_text(in) + ")");
}

template <bool kMax>
bp_status amax_or_amin(const bp_call* c) {
  const char* op = kMax ? "amax" : "amin";
  const View in(arg_tensor(c, 0)), out(out_tensor(c));
  std::vector<bool> reduced;
  if (bp_status s = reduced_dims(c, 1, op, in, out, reduced); s != BP_OK) return s;
  const ReductionGroups groups = reduction_groups(in, out, reduced);
  bool empty = false;
  visit_dtype(in.dtype, [&](auto itag) {
    using I = typename decltype(itag)::type;
    visit_dtype(out.dtype, [&](auto otag) {
      using O = typename decltype(otag)::type;
      for_each_group(groups, [&](int64_t o, std::span<const int64_t> offs) {
        if (offs.empty()) {
          empty = true;
          return;
        }
        const size_t k = extreme_position<kMax, I>(in, offs);
        out.at_offset<O>(o) = convert<O>(in.at_offset<I>(offs[k]));
      });
    });
  });
  return empty ? empty_extreme(op, in) : BP_OK;
}

template <bool kMax>
bp_status argmax_or_argmin(const bp_call* c) {
  const char* op = kMax ? "argmax" : "argmin";
  const View in(arg_tensor(c, 0)), out(out_tensor(c));
  if (out.dtype != BP_DTYPE_I64)
    return fail(BP_ERR_INVALID_ARGUMENT,
                std::string(op) + ": output dtype is " + dtype_name(out.dtype) + ", expected i64");
  std::vector<bool> reduced;
  if (bp_status s = reduced_dims(c, 1, op, in, out, reduced); s != BP_OK) return s;
  const ReductionGroups groups = reduction_groups(in, out, reduced);
  bool empty = false;
  visit_dtype(in.dtype, [&](auto itag) {
    using I = typename decltype(itag)::type;
    for_each_group(groups, [&](int64_t o, std::span<const int64_t> offs) {
      if (offs.empty()) {
        empty = true;
        return;
      }
      out.at_offset<int64_t>(o) = static_cast<int64_t>(extreme_position<kMax, I>(in, offs));
    });
  });
  return empty ? empty_extreme(op, in) : BP_OK;
}

// ---- all and any ----------------------------------------------------------------------------
// Nonzero (NaN included) is true. The output is bool or u8, as the out tensor says.
template <bool kAll>
bp_status all_or_any(const bp_call* c) {
  const char* op = kAll ? "all.dim" : "any.dim";
  const View in(arg_tensor(c, 0)), out(out_tensor(c));
  std::vector<bool> reduced;
  if (bp_status s = reduced_dims(c, 1, op, in, out, reduced); s != BP_OK) return s;
  const ReductionGroups groups = reduction_groups(in, out, reduced);
  visit_dtype(in.dtype, [&](auto itag) {
    using I = typename decltype(itag)::type;
    visit_dtype(out.dtype, [&](auto otag) {
      using O = typename decltype(otag)::type;
      for_each_group(groups, [&](int64_t o, std::span<const int64_t> offs) {
        bool result = kAll;
        for (int64_t off : offs) {
          if (convert<bool>(in.at_offset<I>(off)) != kAll) {
            result = !kAll;
            break;
          }
        }
        out.at_offset<O>(o) = convert<O>(result);
      });
    });
  });
  return BP_OK;
}

}  // namespace

bp_status register_reduction_kernels(uint32_t backend_id) {
  static const KernelEntry kEntries[] = {
      {"sum.dim_IntList", BP_DTYPES_ALL, sum_kernel},
      {"prod.dim_int", BP_DTYPES_ALL, prod_kernel},
      {"amax", BP_DTYPES_ALL, amax_or_amin<true>},
      {"amin", BP_DTYPES_ALL, amax_or_amin<false>},
      // PyTorch has no argmax/argmin for bool.
      {"argmax", kAllButBool, argmax_or_argmin<true>},
      {"argmin", kAllButBool, argmax_or_argmin<false>},
      {"all.dim", BP_DTYPES_ALL, all_or_any<true>},
      {"any.dim", BP_DTYPES_ALL, all_or_any<false>},
  };
  return register_kernels(backend_id, kEntries, sizeof kEntries / sizeof kEntries[0]);
}

}  // namespace bp::reference
