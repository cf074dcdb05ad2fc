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

// The boxed calls the fast path leaves to the dispatcher: out of line, so that the typed
// function holds only the fast path (below).
template <size_t N, size_t S>
[[gnu::noinline]] Tensor boxed_call(OpId id, const Tensor* const (&t)[N], const Scalar (&s)[S]) {
  return call1(id, boxed(t, s));
}
template <size_t N, size_t S>
[[gnu::noinline]] Tensor& boxed_out(Tensor& out, OpId id, const Tensor* const (&t)[N],
                                    const Scalar (&s)[S]) {
  return out1(out, id, boxed(t, s));
}
template <size_t N, size_t S>
[[gnu::noinline]] Tensor& boxed_inplace(Tensor& self, OpId id, const Tensor* const (&t)[N],
                                        const Scalar (&s)[S]) {
  return inplace1(self, id, boxed(t, s));
}

// Inlined into each typed function (always_inline, as ElementwiseCall::run): one call frame
// for the whole fast path, instead of the typed function's and a shared template's (~30
// instructions per call).
template <size_t N, size_t S>
[[gnu::always_inline]] inline Tensor elementwise(detail::ElementwiseCall& op,
                                                 const Tensor* const (&t)[N],
                                                 const Scalar (&s)[S]) {
  Tensor result;  // one named result: returned without a move (NRVO)
  if (!op.template run<N, S>(t, s, result, /*allocate=*/true)) result = boxed_call(op.id(), t, s);
  return result;
}
template <size_t N, size_t S>
[[gnu::always_inline]] inline Tensor& elementwise_out(Tensor& out, detail::ElementwiseCall& op,
                                                      const Tensor* const (&t)[N],
                                                      const Scalar (&s)[S]) {
  if (op.template run<N, S>(t, s, out, /*allocate=*/false)) return out;
  return boxed_out(out, op.id(), t, s);
}
// In place: `self` is t[0] and the output.
template <size_t N, size_t S>
[[gnu::always_inline]] inline Tensor& elementwise_(Tensor& self, detail::ElementwiseCall& op,
                                                   const Tensor* const (&t)[N],
                                                   const Scalar (&s)[S]) {
  if (op.template run<N, S>(t, s, self, /*allocate=*/false)) return self;
  return boxed_inplace(self, op.id(), t, s);
}

// The same without Scalars (a zero-length array cannot be a parameter): kNoScalars stands
// for none, and the boxed calls drop it.
inline constexpr Scalar kNoScalars[1] = {};
template <size_t N>
std::vector<IValue> boxed(const Tensor* const (&t)[N]) {
  std::vector<IValue> args;
  args.reserve(N);
  for (const Tensor* x : t) args.emplace_back(*x);
  return args;
}
template <size_t N>
[[gnu::noinline]] Tensor boxed_call(OpId id, const Tensor* const (&t)[N]) {
  return call1(id, boxed(t));
}
template <size_t N>
[[gnu::noinline]] Tensor& boxed_out(Tensor& out, OpId id, const Tensor* const (&t)[N]) {
  return out1(out, id, boxed(t));
}
template <size_t N>
[[gnu::noinline]] Tensor& boxed_inplace(Tensor& self, OpId id, const Tensor* const (&t)[N]) {
  return inplace1(self, id, boxed(t));
}
template <size_t N>
[[gnu::always_inline]] inline Tensor elementwise(detail::ElementwiseCall& op,
                                                 const Tensor* const (&t)[N]) {
  Tensor result;
  if (!op.template run<N, 0>(t, kNoScalars, result, /*allocate=*/true))
    result = boxed_call(op.id(), t);
  return result;
}
template <size_t N>
[[gnu::always_inline]] inline Tensor& elementwise_out(Tensor& out, detail::ElementwiseCall& op,
                                                      const Tensor* const (&t)[N]) {
  if (op.template run<N, 0>(t, kNoScalars, out, /*allocate=*/false)) return out;
  return boxed_out(out, op.id(), t);
}
template <size_t N>
[[gnu::always_inline]] inline Tensor& elementwise_(Tensor& self, detail::ElementwiseCall& op,
                                                   const Tensor* const (&t)[N]) {
  if (op.template run<N, 0>(t, kNoScalars, self, /*allocate=*/false)) return self;
  return boxed_inplace(self, op.id(), t);
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
inline IValue opt(const std::optional<int64_t>& i) {
  return i ? IValue(*i) : IValue();
}

}  // namespace bp::typed_api
