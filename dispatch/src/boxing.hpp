// Internal: turning boxed arguments into the C ABI's bp_value/bp_tensor arrays for one
// kernel call. Everything lives in a CallFrame on the caller's stack; the tensors it points
// into must outlive the kernel call.
#pragma once

#include "backplane/core/ivalue.hpp"

#include <backplane/plugin.h>

#include <boost/container/small_vector.hpp>

#include <deque>
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
  std::deque<bp_tensor> tensors_;  // stable addresses
  std::deque<std::vector<const bp_tensor*>> lists_;
};

bp_tensor describe_tensor(const Tensor& t);

}  // namespace bp::detail
