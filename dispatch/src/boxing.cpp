// IValue -> bp_value conversion for kernel calls (see boxing.hpp).
#include "boxing.hpp"

#include <type_traits>
#include <variant>

namespace bp::detail {

bp_tensor describe_tensor(const Tensor& t) {
  bp_tensor d{};
  describe_tensor_into(t, &d);
  return d;
}

const bp_tensor* CallFrame::describe(const Tensor& t) {
  bp_tensor* d =
      inline_used_ < kInline ? &inline_tensors_[inline_used_++] : &more_tensors_.emplace_front();
  *d = describe_tensor(t);
  return d;
}

void CallFrame::add_tensor(const Tensor& t) {
  bp_value v{};
  if (t.defined()) {
    v.tag = BP_VALUE_TENSOR;
    v.u.tensor = describe(t);
  } else {
    v.tag = BP_VALUE_NONE;
  }
  values_.push_back(v);
}

void CallFrame::add(const IValue& iv) {
  bp_value v{};
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          v.tag = BP_VALUE_NONE;
        } else if constexpr (std::is_same_v<T, Tensor>) {
          if (x.defined()) {
            v.tag = BP_VALUE_TENSOR;
            v.u.tensor = describe(x);
          } else {
            v.tag = BP_VALUE_NONE;
          }
        } else if constexpr (std::is_same_v<T, TensorList>) {
          auto& list = lists_.emplace_front();
          for (const Tensor& t : x) list.push_back(describe(t));
          v.tag = BP_VALUE_TENSOR_LIST;
          v.u.list.items.tensors = list.data();
          v.u.list.count = list.size();
        } else if constexpr (std::is_same_v<T, Scalar>) {
          v = box_scalar(x);
        } else if constexpr (std::is_same_v<T, int64_t>) {
          v.tag = BP_VALUE_INT;
          v.u.i = x;
        } else if constexpr (std::is_same_v<T, Shape>) {
          v.tag = BP_VALUE_INT_LIST;
          v.u.list.items.ints = x.data();
          v.u.list.count = x.size();
        } else if constexpr (std::is_same_v<T, double>) {
          v.tag = BP_VALUE_FLOAT;
          v.u.f = x;
        } else if constexpr (std::is_same_v<T, bool>) {
          v.tag = BP_VALUE_BOOL;
          v.u.b = x;
        } else if constexpr (std::is_same_v<T, ScalarType>) {
          v.tag = BP_VALUE_DTYPE;
          v.u.dtype = static_cast<bp_dtype>(x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          v.tag = BP_VALUE_STRING;
          v.u.s = x.c_str();
        } else if constexpr (std::is_same_v<T, Device>) {
          v.tag = BP_VALUE_DEVICE;
          v.u.device.type = x.type;
          v.u.device.index = x.index;
        }
      },
      iv.variant());
  values_.push_back(v);
}

}  // namespace bp::detail
