// Conformance records of op set v2's group norm (native_group_norm and its backward),
// floating dtypes: groups of one channel, of several and of all channels, 2-D to 5-D inputs,
// no affine parameters, an empty batch, and the error inputs. The backward's mean and rstd
// come from the reference's forward.
#include "records_internal.hpp"

#include "backplane/ops.hpp"

#include <optional>
#include <utility>

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;

struct GroupCase {
  const char* name;
  bool quick;
  Shape input;
  int64_t group;
  bool affine;
};

const std::vector<GroupCase>& group_cases() {
  static const std::vector<GroupCase> cases = {
      {"groups2_2x4x3x5", true, {2, 4, 3, 5}, 2, true},
      {"group_per_channel_3x6x7", true, {3, 6, 7}, 6, true},
      {"one_group_no_affine_2x6x2x2x2", true, {2, 6, 2, 2, 2}, 1, false},
      {"channels_only_5x8", true, {5, 8}, 4, true},
      {"empty_batch_0x4x3", true, {0, 4, 3}, 2, true},
      {"resnet_like_2x64x14x14_groups32", false, {2, 64, 14, 14}, 32, true},
  };
  return cases;
}

// N, C and HxW of a shape.
std::pair<int64_t, int64_t> channels_and_hxw(const Shape& s) {
  return {s[1], s[1] == 0 ? 0 : numel_of(s) / std::max<int64_t>(s[0], 1) / s[1]};
}

// The values each statistic (and each group's gradient) folds: C / group * HxW.
int64_t group_size(const GroupCase& c) {
  const auto [channels, hxw] = channels_and_hxw(c.input);
  return std::max<int64_t>(1, channels / c.group * hxw);
}

Args forward_args(InputMaker& m, const GroupCase& c, ScalarType t) {
  const auto [channels, hxw] = channels_and_hxw(c.input);
  const Tensor x = m.tensor(c.input, t);
  const IValue w = c.affine ? IValue(m.tensor({channels}, t)) : IValue();
  const IValue b = c.affine ? IValue(m.tensor({channels}, t)) : IValue();
  return {x, w, b, c.input[0], channels, hxw, c.group, 1e-5};
}

std::vector<Sample> forward_samples(ScalarType t) {
  std::vector<Sample> out;
  for (const GroupCase& c : group_cases())
    out.push_back(Sample{c.name, c.quick,
                         [c, t](InputMaker& m) -> Args { return forward_args(m, c, t); },
                         std::nullopt, group_size(c)});
  out.push_back(error_sample("error_group_does_not_divide", "divide", [t](InputMaker& m) -> Args {
    return {m.tensor({2, 4, 3}, t),
            IValue(),
            IValue(),
            int64_t{2},
            int64_t{4},
            int64_t{3},
            int64_t{3},
            1e-5};
  }));
  out.push_back(
      error_sample("error_sizes_do_not_match", "does not match", [t](InputMaker& m) -> Args {
        return {m.tensor({2, 4, 3}, t),
                IValue(),
                IValue(),
                int64_t{2},
                int64_t{4},
                int64_t{5},
                int64_t{2},
                1e-5};
      }));
  return out;
}

std::optional<Tensor> optional(const IValue& v) {
  if (!v.is_tensor() || !v.tensor().defined()) return std::nullopt;
  return v.tensor();
}

std::vector<Sample> backward_samples(ScalarType t) {
  std::vector<Sample> out;
  for (const GroupCase& c : group_cases()) {
    MakeArgs make = [c, t](InputMaker& m) -> Args {
      const Args a = forward_args(m, c, t);
      const std::vector<Tensor> saved =
          bp::native_group_norm(a[0].tensor(), optional(a[1]), optional(a[2]), a[3].to_int(),
                                a[4].to_int(), a[5].to_int(), c.group, 1e-5);
      return {m.tensor(c.input, t), a[0], saved[1], saved[2], a[1], a[3], a[4], a[5], c.group,
              Shape{1, 1, 1}};
    };
    out.push_back(Sample{c.name, c.quick, std::move(make), std::nullopt, group_size(c)});
  }
  return out;
}

}  // namespace

void add_group_norm_records(std::vector<OpRecord>& out) {
  out.push_back({"native_group_norm", floating_dtypes(), forward_samples});
  out.push_back({"native_group_norm_backward", floating_dtypes(), backward_samples});
}

}  // namespace bp::conformance::detail
