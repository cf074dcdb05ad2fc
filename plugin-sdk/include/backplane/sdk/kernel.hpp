// Typed kernels for plugin authors. Write a kernel as an ordinary C++ function whose
// parameters are the op's arguments in schema order followed by its outputs, and register
// it; the SDK unpacks the boxed bp_call into those parameters (checking each tag), catches
// every exception at the boundary and reports it through the host:
//
//   void add_f32(sdk::TensorArg self, sdk::TensorArg other, sdk::Scalar alpha,
//                sdk::TensorArg out) {
//     const float a = alpha.to<float>();
//     sdk::map<float>(out, [a](float x, float y) { return x + a * y; }, self, other);
//   }
//   sdk::Registrar(host, backend).kernel<add_f32>("add.Tensor", BP_DTYPE_BIT(BP_DTYPE_F32));
//
// Parameter types: TensorArg, std::optional<TensorArg>, StridedView (a tensor as plain
// fields, strided_view.hpp), TensorList, Scalar (int, float or bool), std::optional<Scalar>,
// int64_t, std::optional<int64_t>, double, std::optional<double>, bool, IntList,
// std::optional<IntList>, bp_dtype, std::optional<bp_dtype>, const char* (str; NULL when an
// optional str is unset), const bp_value* (any argument as boxed, unchecked: for one whose
// kind varies, such as a dim given as int, int[] or None). A first
// parameter `const sdk::KernelContext&` gives the op name, device index, stream and host.
// The kernel returns void (throw sdk::Error on failure) or a bp_status. Header-only.
#pragma once

#include <backplane/plugin.h>
#include <backplane/sdk/convert.hpp>
#include <backplane/sdk/error.hpp>
#include <backplane/sdk/strided_view.hpp>
#include <backplane/sdk/tensor.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace bp::sdk {

using IntList = std::span<const int64_t>;

// A Scalar argument: an integer, a floating value or a bool, as the caller passed it.
class Scalar {
 public:
  explicit Scalar(const bp_value& v) : v_(v) {}
  bool is_integral() const { return v_.tag == BP_VALUE_INT; }
  bool is_floating() const { return v_.tag == BP_VALUE_FLOAT; }
  bool is_bool() const { return v_.tag == BP_VALUE_BOOL; }
  double to_double() const {
    return is_floating() ? v_.u.f : is_integral() ? static_cast<double>(v_.u.i) : v_.u.b ? 1 : 0;
  }
  int64_t to_int() const {
    return is_integral() ? v_.u.i : is_bool() ? (v_.u.b ? 1 : 0) : static_cast<int64_t>(v_.u.f);
  }
  // The value converted to an element type (f16/bf16 through float, bool as != 0).
  template <typename T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>)
      return is_floating() ? v_.u.f != 0 : to_int() != 0;
    else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
      return T(static_cast<float>(to_double()));
    else if constexpr (std::is_floating_point_v<T>)
      return static_cast<T>(to_double());
    else
      return static_cast<T>(is_floating() ? static_cast<int64_t>(v_.u.f) : to_int());
  }
  // PyTorch's overflow-checked conversion (checked_convert in convert.hpp): throws, in
  // PyTorch's words, "<op>: argument '<name>' value 300 cannot be converted to type i8
  // without overflow" when the value does not fit T.
  template <typename T>
  T checked_to(const char* op_name, const char* arg_name) const {
    // An integer always fits f32 and f64 (their range exceeds int64's) and rounds once, as
    // checked_convert rounds it: inline, with no check (alpha on every add and sub).
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      if (is_integral()) return static_cast<T>(v_.u.i);
    return checked_to_any<T>(op_name, arg_name);
  }
  // "300", "0.5", "True": the value as Python prints it, for messages.
  std::string text() const { return scalar_text(v_); }
  const bp_value& value() const { return v_; }

 private:
  template <typename T>
  [[gnu::noinline]] T checked_to_any(const char* op_name, const char* arg_name) const {
    T out{};
    if (!checked_convert<T>(v_, &out))
      throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op_name) + ": argument '" + arg_name +
                                               "' value " + text() +
                                               " cannot be converted to type " +
                                               dtype_name(dtype_of<T>()) + " without overflow");
    return out;
  }

  bp_value v_;
};

// A Tensor[] argument.
class TensorList {
 public:
  TensorList(const bp_tensor* const* items, size_t count) : items_(items), count_(count) {}
  size_t size() const { return count_; }
  TensorArg operator[](size_t i) const { return TensorArg(items_[i]); }

 private:
  const bp_tensor* const* items_;
  size_t count_;
};

// What a kernel may want besides its arguments.
struct KernelContext {
  const bp_call* call;
  const bp_host_api* host;
  const char* op_name() const { return call->op_name; }
  int32_t device_index() const { return call->device_index; }
  void* stream() const { return call->stream; }
};

namespace detail {

inline const char* tag_name(bp_value_tag tag) {
  constexpr const char* names[] = {"none", "tensor",   "tensor list", "int", "float",
                                   "bool", "int list", "dtype",       "str", "device"};
  return tag < sizeof names / sizeof names[0] ? names[tag] : "unknown value";
}

[[noreturn]] inline void bad_argument(const bp_call* call, size_t i, const char* expected) {
  throw Error(BP_ERR_INVALID_ARGUMENT,
              std::string(call->op_name) + ": argument " + std::to_string(i) + " is a " +
                  tag_name(call->args[i].tag) + ", the kernel expects " + expected);
}

template <typename T>
struct Unpack;

template <typename T>
struct Unpack<std::optional<T>> {
  static std::optional<T> get(const bp_call* c, size_t i) {
    if (c->args[i].tag == BP_VALUE_NONE) return std::nullopt;
    return Unpack<T>::get(c, i);
  }
};
template <>
struct Unpack<TensorArg> {
  static TensorArg get(const bp_call* c, size_t i) {
    if (c->args[i].tag != BP_VALUE_TENSOR || !c->args[i].u.tensor) bad_argument(c, i, "a tensor");
    return TensorArg(c->args[i].u.tensor);
  }
};
template <>
struct Unpack<StridedView> {
  static StridedView get(const bp_call* c, size_t i) {
    return StridedView(Unpack<TensorArg>::get(c, i).raw());
  }
};
template <>
struct Unpack<const bp_value*> {
  static const bp_value* get(const bp_call* c, size_t i) { return &c->args[i]; }
};
template <>
struct Unpack<TensorList> {
  static TensorList get(const bp_call* c, size_t i) {
    if (c->args[i].tag != BP_VALUE_TENSOR_LIST) bad_argument(c, i, "a tensor list");
    return TensorList(c->args[i].u.list.items.tensors, c->args[i].u.list.count);
  }
};
template <>
struct Unpack<Scalar> {
  static Scalar get(const bp_call* c, size_t i) {
    const bp_value_tag t = c->args[i].tag;
    if (t != BP_VALUE_INT && t != BP_VALUE_FLOAT && t != BP_VALUE_BOOL)
      bad_argument(c, i, "a scalar");
    return Scalar(c->args[i]);
  }
};
template <>
struct Unpack<int64_t> {
  static int64_t get(const bp_call* c, size_t i) {
    if (c->args[i].tag != BP_VALUE_INT) bad_argument(c, i, "an int");
    return c->args[i].u.i;
  }
};
template <>
struct Unpack<double> {
  static double get(const bp_call* c, size_t i) {
    if (c->args[i].tag == BP_VALUE_INT) return static_cast<double>(c->args[i].u.i);
    if (c->args[i].tag != BP_VALUE_FLOAT) bad_argument(c, i, "a float");
    return c->args[i].u.f;
  }
};
template <>
struct Unpack<bool> {
  static bool get(const bp_call* c, size_t i) {
    if (c->args[i].tag != BP_VALUE_BOOL) bad_argument(c, i, "a bool");
    return c->args[i].u.b != 0;
  }
};
template <>
struct Unpack<IntList> {
  static IntList get(const bp_call* c, size_t i) {
    if (c->args[i].tag != BP_VALUE_INT_LIST) bad_argument(c, i, "an int list");
    return {c->args[i].u.list.items.ints, c->args[i].u.list.count};
  }
};
template <>
struct Unpack<bp_dtype> {
  static bp_dtype get(const bp_call* c, size_t i) {
    if (c->args[i].tag != BP_VALUE_DTYPE) bad_argument(c, i, "a dtype");
    return c->args[i].u.dtype;
  }
};
template <>
struct Unpack<const char*> {
  static const char* get(const bp_call* c, size_t i) {
    if (c->args[i].tag == BP_VALUE_NONE) return nullptr;
    if (c->args[i].tag != BP_VALUE_STRING) bad_argument(c, i, "a str");
    return c->args[i].u.s;
  }
};

template <typename Fn>
struct Signature;
template <typename R, typename... P>
struct Signature<R (*)(P...)> {
  using Params = std::tuple<std::remove_cvref_t<P>...>;
};

template <typename Params, size_t First, size_t... I>
auto unpack_args(const bp_call* call, std::index_sequence<I...>) {
  return std::tuple<std::tuple_element_t<First + I, Params>...>(
      Unpack<std::tuple_element_t<First + I, Params>>::get(call, I)...);
}

template <auto Fn>
bp_status invoke(const bp_call* call, const bp_host_api* host) {
  using Params = typename Signature<decltype(Fn)>::Params;
  constexpr bool kWantsContext = std::tuple_size_v < Params >> 0 &&
                                 std::is_same_v<std::tuple_element_t<0, Params>, KernelContext>;
  constexpr size_t kFirst = kWantsContext ? 1 : 0;
  constexpr size_t kArgs = std::tuple_size_v<Params> - kFirst;
  if (call->nargs != kArgs)
    throw Error(BP_ERR_INTERNAL, std::string(call->op_name) + ": the runtime passed " +
                                     std::to_string(call->nargs) + " arguments, the kernel takes " +
                                     std::to_string(kArgs));
  auto args = unpack_args<Params, kFirst>(call, std::make_index_sequence<kArgs>{});
  auto run = [&](auto&&... a) {
    if constexpr (kWantsContext)
      return Fn(KernelContext{call, host}, a...);
    else
      return Fn(a...);
  };
  if constexpr (std::is_void_v<decltype(std::apply(run, args))>) {
    std::apply(run, args);
    return BP_OK;
  } else {
    return static_cast<bp_status>(std::apply(run, args));
  }
}

// The bp_kernel_fn registered for Fn: kernel_ctx carries the host API.
template <auto Fn>
bp_status trampoline(const bp_call* call) {
  const auto* host = static_cast<const bp_host_api*>(call->kernel_ctx);
  return guard(host, [&] { return invoke<Fn>(call, host); });
}

}  // namespace detail

// Registers a backend's kernels. Each call throws sdk::Error when the host refuses the
// registration (unknown op name, a dtype the op does not allow); the host already holds
// the precise message, which the boundary wrapper of init keeps.
class Registrar {
 public:
  Registrar(const bp_host_api* host, uint32_t backend_id) : host_(host), backend_(backend_id) {}

  // A typed kernel (see the top of this file). Its kernel_ctx is the host API.
  template <auto Fn>
  Registrar& kernel(const char* op_name, bp_dtype_mask dtypes) {
    return raw(op_name, dtypes, &detail::trampoline<Fn>, const_cast<bp_host_api*>(host_));
  }
  // A plain C kernel with its own context, for kernels that unpack bp_call themselves.
  Registrar& raw(const char* op_name, bp_dtype_mask dtypes, bp_kernel_fn fn, void* kernel_ctx) {
    const bp_status s =
        host_->register_kernel(host_->host, backend_, op_name, dtypes, fn, kernel_ctx);
    if (s != BP_OK)
      throw Error::reported_by_host(s, std::string("register_kernel(") + op_name + ") failed");
    return *this;
  }
  // The dense entry of an elementwise op's kernel (ABI 1.3, plugin.h's bp_dense_call), after
  // the kernel. Optional: on a host without register_dense_kernel it registers nothing, and
  // every call runs the kernel. Absent when built against an older plugin.h (a vendor
  // targeting an older runtime, tests/abi), which has no bp_dense_call.
#if BP_ABI_MINOR >= 3
  Registrar& dense(const char* op_name, bp_dtype_mask dtypes, bp_dense_kernel_fn fn,
                   void* kernel_ctx) {
    if (host_->struct_size < offsetof(bp_host_api, register_dense_kernel) + sizeof(void*) ||
        host_->register_dense_kernel == nullptr)
      return *this;
    const bp_status s =
        host_->register_dense_kernel(host_->host, backend_, op_name, dtypes, fn, kernel_ctx);
    if (s != BP_OK)
      throw Error::reported_by_host(s,
                                    std::string("register_dense_kernel(") + op_name + ") failed");
    return *this;
  }
#endif

 private:
  const bp_host_api* host_;
  uint32_t backend_;
};

}  // namespace bp::sdk
