// Internal: turning boxed arguments into the C ABI's bp_value/bp_tensor arrays for one
// kernel call. Everything lives in a CallFrame on the caller's stack; the tensors it points
// into must outlive the kernel call.
#pragma once

#include "backplane/core/ivalue.hpp"

#include <backplane/plugin.h>

#include <boost/container/small_vector.hpp>

#include <array>
#include <cstddef>
#include <cstring>
#include <forward_list>
#include <vector>

namespace bp::detail {

class CallFrame {
 public:
  void add(const IValue& v);
  void add_tensor(const Tensor& t);
  const bp_value* values() const { return values_.data(); }
  size_t size() const { return values_.size(); }

 private:
  const bp_tensor* describe(const Tensor& t);

  boost::container::small_vector<bp_value, 8> values_;
  // Descriptors need stable addresses (values_ points at them): the first kInline live in
  // the frame, more in a list. Neither allocates until used (a deque would, when made).
  static constexpr size_t kInline = 8;
  std::array<bp_tensor, kInline> inline_tensors_;
  size_t inline_used_ = 0;
  std::forward_list<bp_tensor> more_tensors_;
  std::forward_list<std::vector<const bp_tensor*>> lists_;
};

bp_tensor describe_tensor(const Tensor& t);

// Note [Tensor call head] (backplane/core/tensor.hpp): the head a Tensor keeps ready is bp_tensor's
// run of fields from `data` to `ndim`, so describe_tensor copies it in one piece.
static_assert(offsetof(bp_tensor, ndim) + sizeof(int32_t) - offsetof(bp_tensor, data) ==
              sizeof(TensorCallHead));
static_assert(offsetof(bp_tensor, byte_offset) - offsetof(bp_tensor, data) ==
              offsetof(TensorCallHead, byte_offset));
static_assert(offsetof(bp_tensor, device_type) - offsetof(bp_tensor, data) ==
              offsetof(TensorCallHead, device_type));
static_assert(offsetof(bp_tensor, device_index) - offsetof(bp_tensor, data) ==
              offsetof(TensorCallHead, device_index));
static_assert(offsetof(bp_tensor, dtype) - offsetof(bp_tensor, data) ==
              offsetof(TensorCallHead, dtype));
static_assert(offsetof(bp_tensor, ndim) - offsetof(bp_tensor, data) ==
              offsetof(TensorCallHead, ndim));
static_assert(sizeof(bp_dtype) == sizeof(TensorCallHead::dtype) &&
              sizeof(bp_tensor::device_type) == sizeof(TensorCallHead::device_type));

// describe_tensor for a defined tensor (the fast path's inline form).
[[gnu::always_inline]] inline void describe_tensor_into(const Tensor& t, bp_tensor* d) {
  d->struct_size = sizeof(bp_tensor);
  std::memcpy(&d->data, &t.call_head(), sizeof(TensorCallHead));
  d->shape = t.sizes().data();
  d->strides = t.strides().data();
}

// A Scalar as the kernel sees it: BP_VALUE_BOOL, BP_VALUE_INT or BP_VALUE_FLOAT.
inline bp_value box_scalar(const Scalar& s) {
  bp_value v;
  // The union's second word, so that every member a plugin may read is defined (a `{}`
  // initialiser zeroes all 24 bytes, a loop of stores on the fast path).
  v.u.list.count = 0;
  if (s.is_bool()) {
    v.tag = BP_VALUE_BOOL;
    v.u.b = s.to_bool();
  } else if (s.is_integral()) {
    v.tag = BP_VALUE_INT;
    v.u.i = s.to_int();
  } else {
    v.tag = BP_VALUE_FLOAT;
    v.u.f = s.to_double();
  }
  return v;
}

}  // namespace bp::detail
