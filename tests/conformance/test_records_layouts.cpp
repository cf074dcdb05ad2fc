// Every layout class in the quick suite (issue 24): for each op and dtype, the quick samples
// must hold at least one input of each layout class the op accepts — transposed, strided
// with gaps, offset, broadcast (a stride-0 dim, or inputs of different shapes that
// broadcast), 0-d, empty and odd-sized — so a kernel that ignores strides, offsets or a
// size that is not a multiple of its vector width fails the default run, not only --full.
// The classes are read off the tensors the samples make (suite seed 0), not off their
// names.
#include <backplane/conformance/records.hpp>

#include <backplane/backplane.hpp>
#include <backplane/core/ivalue.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace bp::test {
namespace {

using namespace conformance;

enum class LayoutClass { Transposed, Gaps, Offset, Broadcast, ZeroDim, Empty, Odd };
constexpr LayoutClass kClasses[] = {
    LayoutClass::Transposed, LayoutClass::Gaps,  LayoutClass::Offset, LayoutClass::Broadcast,
    LayoutClass::ZeroDim,    LayoutClass::Empty, LayoutClass::Odd};

const char* class_name(LayoutClass c) {
  switch (c) {
    case LayoutClass::Transposed:
      return "transposed";
    case LayoutClass::Gaps:
      return "strided with gaps";
    case LayoutClass::Offset:
      return "offset";
    case LayoutClass::Broadcast:
      return "broadcast";
    case LayoutClass::ZeroDim:
      return "0-d";
    case LayoutClass::Empty:
      return "empty";
    case LayoutClass::Odd:
      return "odd-sized";
  }
  return "?";
}

// The classes one tensor belongs to.
std::set<LayoutClass> classes_of(const Tensor& t) {
  std::set<LayoutClass> out;
  const auto sizes = t.sizes();
  const auto strides = t.strides();
  if (t.dim() == 0) out.insert(LayoutClass::ZeroDim);
  if (t.numel() == 0) {
    out.insert(LayoutClass::Empty);
    return out;
  }
  if (t.storage_offset() > 0) out.insert(LayoutClass::Offset);
  // Odd-sized: more elements than one 8-wide vector, and not a multiple of 8 (a SIMD tail).
  if (t.numel() > 8 && t.numel() % 8 != 0) out.insert(LayoutClass::Odd);
  bool zero_stride = false;
  int64_t extent = 1;  // storage elements the view spans
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] <= 1) continue;
    if (strides[d] == 0) zero_stride = true;
    extent += (sizes[d] - 1) * std::abs(strides[d]);
  }
  if (zero_stride) out.insert(LayoutClass::Broadcast);
  if (!zero_stride && extent > t.numel()) out.insert(LayoutClass::Gaps);
  // Transposed: an outer dim (size > 1) steps less far than an inner one.
  for (size_t d = 0; d < sizes.size(); ++d)
    for (size_t e = d + 1; e < sizes.size(); ++e)
      if (sizes[d] > 1 && sizes[e] > 1 && strides[d] != 0 && strides[d] < strides[e])
        out.insert(LayoutClass::Transposed);
  return out;
}

// Inputs of different shapes that broadcast: aligned from the right, one has size 1 (or no
// dim) where another has more.
bool shapes_broadcast(const std::vector<Tensor>& tensors) {
  for (const Tensor& a : tensors)
    for (const Tensor& b : tensors) {
      if (a.numel() == 0 || b.numel() == 0) continue;
      const int64_t n = std::max(a.dim(), b.dim());
      for (int64_t i = 1; i <= n; ++i) {
        const int64_t sa = i <= a.dim() ? a.sizes()[a.dim() - i] : 1;
        const int64_t sb = i <= b.dim() ? b.sizes()[b.dim() - i] : 1;
        if (sa == 1 && sb > 1) return true;
      }
    }
  return false;
}

// The classes the quick (non-error) samples of `op` in `dtype` hold.
std::set<LayoutClass> quick_classes(const OpRecord& record, ScalarType dtype) {
  std::set<LayoutClass> found;
  for (const Sample& sample : record.samples(dtype)) {
    if (!sample.quick || sample.expect_error) continue;
    InputMaker maker(0);
    std::vector<Tensor> tensors;
    for (const IValue& v : sample.make(maker)) {
      if (v.is_tensor() && v.tensor().defined()) tensors.push_back(v.tensor());
      if (v.is_tensor_list())
        for (const Tensor& t : v.tensor_list()) tensors.push_back(t);
    }
    for (const Tensor& t : tensors) found.merge(classes_of(t));
    if (shapes_broadcast(tensors)) found.insert(LayoutClass::Broadcast);
  }
  return found;
}

// The classes an op cannot take, with the reason: nothing else is exempt.
struct Exemption {
  std::string op;
  std::vector<LayoutClass> classes;
  const char* why;
};
const std::vector<Exemption> kExemptions = {
    {"arange.start_step",
     {LayoutClass::Transposed, LayoutClass::Gaps, LayoutClass::Offset, LayoutClass::Broadcast,
      LayoutClass::ZeroDim, LayoutClass::Empty, LayoutClass::Odd},
     "a factory: no tensor input (its empty and odd-sized outputs are samples of their own)"},
    {"fill_.Scalar",
     {LayoutClass::Broadcast},
     "its one tensor is the one it writes, which must not overlap itself (a stride-0 dim)"},
    {"zero_",
     {LayoutClass::Broadcast},
     "its one tensor is the one it writes, which must not overlap itself (a stride-0 dim)"},
    {"uniform_",
     {LayoutClass::Broadcast},
     "its one tensor is the one it writes, which must not overlap itself (a stride-0 dim)"},
    {"normal_",
     {LayoutClass::Broadcast},
     "its one tensor is the one it writes, which must not overlap itself (a stride-0 dim)"},
    {"random_.from",
     {LayoutClass::Broadcast},
     "its one tensor is the one it writes, which must not overlap itself (a stride-0 dim)"},
    {"random_.to",
     {LayoutClass::Broadcast},
     "its one tensor is the one it writes, which must not overlap itself (a stride-0 dim)"},
    {"random_",
     {LayoutClass::Broadcast},
     "its one tensor is the one it writes, which must not overlap itself (a stride-0 dim)"},
    {"bernoulli_.float",
     {LayoutClass::Broadcast},
     "its one tensor is the one it writes, which must not overlap itself (a stride-0 dim)"},
    {"cat", {LayoutClass::ZeroDim}, "a 0-d tensor cannot be concatenated (an error sample)"},
    {"matmul", {LayoutClass::ZeroDim}, "both operands must be at least 1-D (an error sample)"},
    {"layer_norm",
     {LayoutClass::ZeroDim},
     "normalized_shape must name at least one dim of the input, as in PyTorch (an error "
     "sample)"},
    {"native_layer_norm",
     {LayoutClass::ZeroDim},
     "normalized_shape must name at least one dim of the input, as in PyTorch (an error "
     "sample)"},
    {"native_layer_norm_backward",
     {LayoutClass::ZeroDim},
     "normalized_shape must name at least one dim of the input (an error sample)"},
    {"rms_norm",
     {LayoutClass::ZeroDim},
     "normalized_shape must name at least one dim of the input (an error sample)"},
    {"scaled_dot_product_attention",
     {LayoutClass::ZeroDim},
     "query, key and value are matrices (or batches of them): at least 2-D"},
    {"tril", {LayoutClass::ZeroDim}, "self is a matrix or a batch of them (an error sample)"},
    {"triu", {LayoutClass::ZeroDim}, "self is a matrix or a batch of them (an error sample)"},
    {"convolution_forward",
     {LayoutClass::ZeroDim},
     "input and weight have 3 or 4 dims [N, C, *] (an error sample)"},
    {"convolution_backward_input", {LayoutClass::ZeroDim}, "its tensors have 3 or 4 dims"},
    {"convolution_backward_weight", {LayoutClass::ZeroDim}, "its tensors have 3 or 4 dims"},
    {"convolution", {LayoutClass::ZeroDim}, "its tensors have 3 or 4 dims"},
    {"convolution_backward", {LayoutClass::ZeroDim}, "its tensors have 3 or 4 dims"},
    {"max_pool2d_with_indices",
     {LayoutClass::ZeroDim},
     "self is [C, H, W] or [N, C, H, W] (an error sample)"},
    {"max_pool2d_with_indices_backward", {LayoutClass::ZeroDim}, "its tensors have 3 or 4 dims"},
    {"avg_pool2d", {LayoutClass::ZeroDim}, "self is [C, H, W] or [N, C, H, W]"},
    {"avg_pool2d_backward", {LayoutClass::ZeroDim}, "its tensors have 3 or 4 dims"},
    {"_adaptive_avg_pool2d", {LayoutClass::ZeroDim}, "self is [C, H, W] or [N, C, H, W]"},
    {"_adaptive_avg_pool2d_backward", {LayoutClass::ZeroDim}, "its tensors have 3 or 4 dims"},
    {"native_batch_norm", {LayoutClass::ZeroDim}, "input is [N, C, *] (an error sample)"},
    {"native_batch_norm_backward", {LayoutClass::ZeroDim}, "input is [N, C, *]"},
    {"native_group_norm", {LayoutClass::ZeroDim}, "input is [N, C, *] (an error sample)"},
    {"native_group_norm_backward", {LayoutClass::ZeroDim}, "input is [N, C, *]"},
};

bool exempt(const std::string& op, LayoutClass c) {
  for (const Exemption& e : kExemptions)
    if (e.op == op && std::find(e.classes.begin(), e.classes.end(), c) != e.classes.end())
      return true;
  return false;
}

}  // namespace

TEST_CASE("records: every op's quick samples hold every layout class it accepts, per dtype") {
  std::map<std::string, int> missing_by_class;
  for (const OpRecord& record : op_records()) {
    for (ScalarType dtype : record.dtypes) {
      const std::set<LayoutClass> found = quick_classes(record, dtype);
      for (LayoutClass c : kClasses) {
        if (found.count(c) || exempt(record.op, c)) continue;
        ++missing_by_class[class_name(c)];
        CHECK_MESSAGE(false, record.op << "/" << dtype_name(dtype) << ": no quick sample with a "
                                       << std::string(class_name(c)) << " input");
      }
    }
  }
  for (const auto& [name, count] : missing_by_class) MESSAGE(name << ": " << count << " missing");
}

TEST_CASE("records: the layout classifier tells each class apart") {
  InputMaker maker(0);
  const Tensor base = maker.tensor({4, 6}, ScalarType::Float32);
  CHECK(classes_of(base).empty());
  CHECK(classes_of(maker.tensor({4, 6}, ScalarType::Float32, Values::Normal, Layout::Transposed))
            .count(LayoutClass::Transposed));
  CHECK(classes_of(maker.tensor({4, 6}, ScalarType::Float32, Values::Normal, Layout::Strided))
            .count(LayoutClass::Gaps));
  CHECK(classes_of(maker.tensor({4, 6}, ScalarType::Float32, Values::Normal, Layout::Offset))
            .count(LayoutClass::Offset));
  CHECK(classes_of(base.as_strided({4, 6}, {0, 1}, 0)).count(LayoutClass::Broadcast));
  CHECK(classes_of(maker.tensor({}, ScalarType::Float32)).count(LayoutClass::ZeroDim));
  CHECK(classes_of(maker.tensor({0, 3}, ScalarType::Float32)).count(LayoutClass::Empty));
  CHECK(classes_of(maker.tensor({3, 5}, ScalarType::Float32)).count(LayoutClass::Odd));
  CHECK_FALSE(classes_of(maker.tensor({2, 8}, ScalarType::Float32)).count(LayoutClass::Odd));
  CHECK(shapes_broadcast(
      {maker.tensor({3, 1}, ScalarType::Float32), maker.tensor({1, 4}, ScalarType::Float32)}));
  CHECK_FALSE(shapes_broadcast({base, base}));
}

}  // namespace bp::test
