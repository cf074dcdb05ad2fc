// Internal: what the typed operator API's functions (dispatch/src/ops/*.cpp, declared in
// backplane/ops.hpp) are written with. Each function boxes its arguments in schema order
// and calls the dispatcher (call1, out1, inplace1); an elementwise op tries the fast path
// first (elementwise, elementwise_out, elementwise_: fast_path.hpp). Each function looks its
// op up once, in a function-local static, so a call does no string lookup.
#pragma once

#include "../fast_path.hpp"

#include "backplane/dispatch/dispatcher.hpp"
#include "backplane/ops.hpp"

#include <optional>
#include <string>
#include <vector>

namespace bp::typed_api {

inline Tensor call1(OpId id, std::vector<IValue> args) {
  return call(id, std::move(args))[0];
}

inline Tensor& out1(Tensor& out, OpId id, std::vector<IValue> args) {
  Tensor* outs[] = {&out};
  call_out(id, std::move(args), outs);
  return out;
}

inline Tensor& inplace1(Tensor& self, OpId id, std::vector<IValue> args) {
  Tensor* outs[] = {&self};
  call_out(id, std::move(args), outs, /*in_place=*/true);
  return self;
}

// ---- elementwise ops: the fast path (fast_path.hpp) first, else the boxed call ----------
// `t` are the op's tensors and `s` its Scalars, both in schema order (tensors first).
template <size_t N, size_t S>
std::vector<IValue> boxed(const Tensor* const (&t)[N], const Scalar (&s)[S]) {
  std::vector<IValue> args;
  args.reserve(N + S);
  for (const Tensor* x : t) args.emplace_back(*x);
  for (const Scalar& x : s) args.emplace_back(x);
  return args;
}

template <size_t N, size_t S>
Tensor elementwise(detail::ElementwiseCall& op, const Tensor* const (&t)[N], const Scalar (&s)[S]) {
  Tensor result;  // one named result: returned without a move (NRVO)
  if (!op.template run<N, S>(t, s, result, /*allocate=*/true)) result = call1(op.id(), boxed(t, s));
  return result;
}
template <size_t N, size_t S>
Tensor& elementwise_out(Tensor& out, detail::ElementwiseCall& op, const Tensor* const (&t)[N],
                        const Scalar (&s)[S]) {
  if (op.template run<N, S>(t, s, out, /*allocate=*/false)) return out;
  return out1(out, op.id(), boxed(t, s));
}
// In place: `self` is t[0] and the output.
template <size_t N, size_t S>
Tensor& elementwise_(Tensor& self, detail::ElementwiseCall& op, const Tensor* const (&t)[N],
                     const Scalar (&s)[S]) {
  if (op.template run<N, S>(t, s, self, /*allocate=*/false)) return self;
  return inplace1(self, op.id(), boxed(t, s));
}

// The same without Scalars (a zero-length array cannot be a parameter).
inline constexpr Scalar kNoScalars[1] = {};
template <size_t N>
std::vector<IValue> boxed(const Tensor* const (&t)[N]) {
  std::vector<IValue> args;
  args.reserve(N);
  for (const Tensor* x : t) args.emplace_back(*x);
  return args;
}
template <size_t N>
Tensor elementwise(detail::ElementwiseCall& op, const Tensor* const (&t)[N]) {
  Tensor result;
  if (!op.template run<N, 0>(t, kNoScalars, result, /*allocate=*/true))
    result = call1(op.id(), boxed(t));
  return result;
}
template <size_t N>
Tensor& elementwise_out(Tensor& out, detail::ElementwiseCall& op, const Tensor* const (&t)[N]) {
  if (op.template run<N, 0>(t, kNoScalars, out, /*allocate=*/false)) return out;
  return out1(out, op.id(), boxed(t));
}
template <size_t N>
Tensor& elementwise_(Tensor& self, detail::ElementwiseCall& op, const Tensor* const (&t)[N]) {
  if (op.template run<N, 0>(t, kNoScalars, self, /*allocate=*/false)) return self;
  return inplace1(self, op.id(), boxed(t));
}

inline IValue dims(const OptionalIntList& d) {
  return d ? IValue(Shape(d->begin(), d->end())) : IValue();
}
inline IValue dims(const std::vector<int64_t>& d) {
  return IValue(Shape(d.begin(), d.end()));
}
inline IValue opt(const std::optional<std::string>& s) {
  return s ? IValue(*s) : IValue();
}
inline IValue opt(const std::optional<Tensor>& t) {
  return t ? IValue(*t) : IValue();
}

}  // namespace bp::typed_api
