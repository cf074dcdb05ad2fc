// Reference kernels for the reductions: sum.dim_IntList, prod.dim_int, amax, amin, argmax,
// argmin, all.dim, any.dim. The meta rule hands every kernel its output in the keepdim shape
// (same ndim as the input, size 1 in each reduced dim) and its dims wrapped and explicit, so
// one loop serves all of them: for each output element, collect the input elements of its
// reduced sub-space in row-major order and fold them. Floating results accumulate in double
// and are rounded once; integer results wrap exactly like PyTorch (uint64 arithmetic).
#include "reference.hpp"

#include <cmath>
#include <optional>
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

ReductionGroups reduction_groups(const StridedView& in, const StridedView& out,
                                 const std::vector<bool>& reduced) {
  ReductionGroups groups;
  std::vector<int64_t> rshape(static_cast<size_t>(in.ndim));
  groups.group_size = 1;
  for (int32_t d = 0; d < in.ndim; ++d) {
    rshape[static_cast<size_t>(d)] = reduced[static_cast<size_t>(d)] ? in.shape[d] : 1;
    groups.group_size *= rshape[static_cast<size_t>(d)];
  }
  for_each_index(out, [&](const int64_t* oidx) {
    int64_t base = 0;
    for (int32_t d = 0; d < in.ndim; ++d)
      if (!reduced[static_cast<size_t>(d)]) base += oidx[d] * in.strides[d];
    groups.out_offsets.push_back(out.offset_of(oidx));
    sdk::for_each_index(rshape, [&](const int64_t* ridx) {
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

// The sum or product of one group, each element cast to O first.
template <bool kProd, typename I, typename O>
O fold(const StridedView& in, std::span<const int64_t> offs) {
  if constexpr (kIsFloating<O>) {
    double acc = kProd ? 1.0 : 0.0;
    for (int64_t off : offs) {
      const double x = to_double(convert<O>(in.at_offset<I>(off)));
      acc = kProd ? acc * x : acc + x;
    }
    return from_double<O>(acc);
  } else {
    uint64_t acc = kProd ? 1 : 0;
    for (int64_t off : offs) {
      const uint64_t x = as_u64(convert<O>(in.at_offset<I>(off)));
      acc = kProd ? acc * x : acc + x;
    }
    return wrap_int<O>(acc);
  }
}

// Each reduction by its SDK tag; run() takes the op's arguments (op_families.hpp).
template <typename Op>
struct Reduction;

// ---- sum and prod --------------------------------------------------------------------------
// Each element is first cast to the output dtype (as PyTorch casts the input for `dtype=`),
// then folded: in double for floating outputs (rounded once at the end), in uint64 for
// integral and bool outputs (wrapped at the end; for bool, sum is `or` and prod is `and`).
template <bool kProd>
struct Reduction<op::SumProd<kProd>> {
  static void run(const KernelContext& ctx, StridedView in, const bp_value* dim, bool,
                  std::optional<bp_dtype>, StridedView out) {
    const char* op = ctx.op_name();
    const ReductionGroups groups = reduction_groups(in, out, sdk::reduced_dims(op, *dim, in, out));
    visit_dtype(in.dtype, [&](auto itag) {
      using I = typename decltype(itag)::type;
      visit_dtype(out.dtype, [&](auto otag) {
        using O = typename decltype(otag)::type;
        for_each_group(groups, [&](int64_t o, std::span<const int64_t> offs) {
          out.at_offset<O>(o) = fold<kProd, I, O>(in, offs);
        });
      });
    });
  }
};

// ---- amax/amin and argmax/argmin -----------------------------------------------------------
// Finds, in one reduced list, the position of the extreme element: the first NaN if there is
// one (NaN propagates / wins), else the first of the equal extremes.
template <bool kMax, typename T>
size_t extreme_position(const StridedView& in, std::span<const int64_t> offs) {
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

template <bool kMax>
struct Reduction<op::Extreme<kMax>> {
  static void run(const KernelContext& ctx, StridedView in, const bp_value* dim, bool,
                  StridedView out) {
    const char* op = ctx.op_name();
    const ReductionGroups groups = reduction_groups(in, out, sdk::reduced_dims(op, *dim, in, out));
    if (groups.count() > 0 && groups.group_size == 0) throw sdk::empty_reduction(op, in);
    visit_dtype(in.dtype, [&](auto itag) {
      using I = typename decltype(itag)::type;
      visit_dtype(out.dtype, [&](auto otag) {
        using O = typename decltype(otag)::type;
        for_each_group(groups, [&](int64_t o, std::span<const int64_t> offs) {
          const size_t k = extreme_position<kMax, I>(in, offs);
          out.at_offset<O>(o) = convert<O>(in.at_offset<I>(offs[k]));
        });
      });
    });
  }
};

template <bool kMax>
struct Reduction<op::ArgExtreme<kMax>> {
  static void run(const KernelContext& ctx, StridedView in, const bp_value* dim, bool,
                  StridedView out) {
    const char* op = ctx.op_name();
    if (out.dtype != BP_DTYPE_I64)
      throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": output dtype is " +
                                               dtype_name(out.dtype) + ", expected i64");
    const ReductionGroups groups = reduction_groups(in, out, sdk::reduced_dims(op, *dim, in, out));
    if (groups.count() > 0 && groups.group_size == 0) throw sdk::empty_reduction(op, in);
    visit_dtype(in.dtype, [&](auto itag) {
      using I = typename decltype(itag)::type;
      for_each_group(groups, [&](int64_t o, std::span<const int64_t> offs) {
        out.at_offset<int64_t>(o) = static_cast<int64_t>(extreme_position<kMax, I>(in, offs));
      });
    });
  }
};

// ---- all and any ----------------------------------------------------------------------------
// Nonzero (NaN included) is true. The output is bool or u8, as the out tensor says.
template <bool kAll>
struct Reduction<op::AllAny<kAll>> {
  static void run(const KernelContext& ctx, StridedView in, const bp_value* dim, bool,
                  StridedView out) {
    const char* op = ctx.op_name();
    const ReductionGroups groups = reduction_groups(in, out, sdk::reduced_dims(op, *dim, in, out));
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
  }
};

}  // namespace

void register_reduction_kernels(sdk::Registrar& r) {
  sdk::register_reduction_ops<Reduction>(r);
}

}  // namespace bp::reference
