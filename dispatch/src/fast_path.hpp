// Internal: the elementwise fast path of the typed operator API (ops.cpp). A call of an
// elementwise op whose tensors all have one shape skips the boxed path's argument vector,
// meta rule and call frame, and calls the kernel through the same C ABI with the same
// arguments the boxed path would pass. Anything else returns false and takes the boxed path.
//
// Note [Elementwise fast path]
// What the boxed path works out per call — checked arguments, the meta rule's output dtype
// and compute dtype — depends, for tensors of one shape, only on a small signature: each
// tensor's dtype and wrapped-number flag, whether the shape is 0-d, and each Scalar's kind
// (bool, int, float). Core's meta rules are pure functions, so an ElementwiseCall runs the
// real meta rule once per signature and caches its answer in a word that holds both the
// signature and the answer (one relaxed atomic: threads racing on a miss both store the
// same value). A signature is cached as "not fast" when the meta rule throws, converts an
// input, changes an argument (a view other than the input itself) or gives an output of
// another shape; such calls, and calls while a dispatch layer is on (tracing), with several
// devices, with an output that is not exactly the result's shape and dtype or that partly overlaps
// an input, with a forced CPU fallback, or without a kernel for the dtype, take the boxed path,
// which reports errors as it always has. The kernel table is read on every call (never cached), so
// loading and unloading plugins is seen at once, as on the boxed path. When every tensor,
// the output included, is contiguous, the inputs are in the kernel's dtype and the backend
// registered a dense entry for that dtype (ABI 1.3, plugin.h's bp_dense_call), the call goes
// to it with data pointers, the element count and the Scalars, and no descriptors; an entry
// that declines the call (BP_ERR_UNSUPPORTED) leaves it to the kernel.
#pragma once

#include "boxing.hpp"
#include "calls_in_flight.hpp"
#include "kernel_call.hpp"
#include "layers_impl.hpp"
#include "runtime_impl.hpp"

#include "backplane/core/catalog.hpp"
#include "backplane/core/scalar.hpp"
#include "backplane/core/tensor.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <span>
#include <string_view>

namespace bp::detail {

class ElementwiseCall {
 public:
  // `op_name` has the schema (Tensor x num_tensors, Scalar x num_scalars) -> Tensor; for
  // any other schema the fast path stays off and every call takes the boxed path.
  ElementwiseCall(std::string_view op_name, int num_tensors, int num_scalars);

  OpId id() const { return id_; }
  bool enabled() const { return enabled_; }
  int num_tensors() const { return num_tensors_; }
  int num_scalars() const { return num_scalars_; }

  // Runs the op on N tensors and S Scalars (schema order; the constructor's counts) into
  // a new tensor stored in `out` (allocate) or into the caller's `out` (an out= or in-place
  // call). Returns false, having changed nothing, when the call needs the boxed path.
  // Inlined into each typed function and unrolled over N and S: this is the hot path of every
  // small elementwise op, and the call itself (saving six registers, spilling) cost ~25.
  template <int N, int S>
  [[gnu::always_inline]] bool run(const Tensor* const* tensors, const Scalar* scalars, Tensor& out,
                                  bool allocate);

 private:
  static constexpr size_t kCacheSize = 8;  // a power of two
  static constexpr uint64_t kFast = uint64_t{1} << 16;
  // Every tensor argument has the kernel dtype: a dense entry may take the call.
  static constexpr uint64_t kOneDtype = uint64_t{1} << 17;

  // The last step of run when the dense entry does not take the call: the kernel, with
  // descriptors, on arguments run has checked.
  template <int N, int S>
  [[gnu::always_inline]] void call_boxed(const KernelSlot& slot, Device device,
                                         const Tensor* const* tensors, const Scalar* scalars,
                                         const Tensor& out) const;
  // Runs the meta rule for a signature not in the cache, stores and returns its entry.
  uint64_t learn(uint32_t signature, const Tensor* const* tensors, const Scalar* scalars);
  // Makes `out` a new contiguous tensor of the device with the shape of `like` (in place: no
  // Tensor is moved).
  void allocate_output(Backend& backend, Device device, const Tensor& like, ScalarType dtype,
                       Tensor& out) const;

  const OpDef* op_ = nullptr;
  Runtime* runtime_ = nullptr;  // Runtime::get(), looked up once
  OpId id_ = kInvalidOp;
  bool enabled_ = false;
  int num_tensors_ = 0;
  int num_scalars_ = 0;
  // Per entry: (signature + 1) << 32 | kOneDtype | kFast | kernel dtype << 8 | result dtype;
  // 0 = empty.
  std::array<std::atomic<uint64_t>, kCacheSize> cache_{};
};

// The fast path for the boxed API (bp::call, bp::call_out): an ElementwiseCall per
// elementwise catalog op (kElementwiseOps in fast_path.cpp; made on first use), run on `args` as
// the boxed caller gave them (trailing Scalars may be omitted: their defaults apply). Returns
// false, having changed nothing, when the op or the call needs the boxed path. The PyTorch bridge
// and the composites reach their kernels this way.
bool run_elementwise_boxed(OpId op, std::span<const IValue> args, Tensor& out, bool allocate);

// Whether `op` is one the fast path runs, and so one a plugin may give a dense kernel entry
// (plugin.h's register_dense_kernel).
bool has_dense_form(OpId op);

// a.sizes() == b.sizes() as a plain loop: the shapes here have a handful of dims, and
// small_vector's operator== (iterators and a generic algorithm) costs several times this on
// the fast path's three comparisons per call.
inline bool same_sizes(const Shape& a, const Shape& b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  const int64_t* x = a.data();
  const int64_t* y = b.data();
  for (size_t d = 0; d < n; ++d)
    if (x[d] != y[d]) return false;
  return true;
}

// The same view of the same storage (an in-place call, where out is self, is no overlap).
inline bool same_view_of_storage(const Tensor& a, const Tensor& b) {
  return a.storage_offset() == b.storage_offset() && a.strides() == b.strides() &&
         a.dtype() == b.dtype();
}

// The address of a defined tensor's first element, from its call head.
inline const void* first_element(const Tensor& t) {
  const TensorCallHead& h = t.call_head();
  return static_cast<const char*>(h.data) + h.byte_offset;
}

// The device of a defined tensor, from its call head (no load of the Storage).
inline Device device_of(const Tensor& t) {
  const TensorCallHead& h = t.call_head();
  return Device(static_cast<DeviceType>(h.device_type), static_cast<int16_t>(h.device_index));
}

// Whether the kernel may write the caller's `out` directly: exactly the result's shape, dtype
// and device, no partial overlap with an input (an identical view is an in-place call), and
// no stride-0 dim (an expanded out, which the boxed path refuses).
template <int N>
[[gnu::always_inline]] inline bool can_write_out(const Tensor* const* tensors, const Tensor& out,
                                                 Device device, const Shape& sizes,
                                                 ScalarType result_dtype) {
  if (!out.defined() || out.dtype() != result_dtype || (out.fast_key() & Tensor::kKeyZeroStride) ||
      device_of(out) != device || !same_sizes(out.sizes(), sizes))
    return false;
  for (int i = 0; i < N; ++i)
    if (tensors[i]->storage() == out.storage() && !same_view_of_storage(*tensors[i], out))
        [[unlikely]]
      return false;
  return true;
}

template <int N, int S>
inline bool ElementwiseCall::run(const Tensor* const* tensors, const Scalar* scalars, Tensor& out,
                                 bool allocate) {
  if (!enabled_ || N != num_tensors_ || S != num_scalars_ || layers_on()) return false;
  // Before the kernel table is read (Note [Waiting for calls in flight]).
  PluginCallScope in_flight;
  const Tensor& first = *tensors[0];
  // Empty results take the boxed path: it replaces an empty out rather than writing it.
  // (Note [Tensor call head]: the key of an undefined tensor is 0, so test defined() too.)
  if (!first.defined() || (first.fast_key() & Tensor::kKeyEmpty)) return false;
  const Device device = device_of(first);
  const Shape& sizes = first.sizes();

  // The signature (Note [Elementwise fast path]): 6 bits per tensor, one for 0-d, 2 per Scalar.
  uint32_t signature = (first.fast_key() & Tensor::kKeyZeroDim) ? 1u : 0u;
  uint32_t all_keys = ~0u;  // the bits every tensor's key has
  for (int i = 0; i < N; ++i) {
    const Tensor& t = *tensors[i];
    if (i > 0 && (!t.defined() || device_of(t) != device || !same_sizes(t.sizes(), sizes)))
      return false;
    signature = signature << 6 | (t.fast_key() & Tensor::kKeySignature);
    all_keys &= t.fast_key();
  }
  for (int j = 0; j < S; ++j) signature = signature << 2 | static_cast<uint32_t>(scalars[j].kind());

  uint64_t entry = cache_[signature & (kCacheSize - 1)].load(std::memory_order_relaxed);
  if (entry >> 32 != uint64_t{signature} + 1) [[unlikely]]
    entry = learn(signature, tensors, scalars);
  if (!(entry & kFast)) return false;
  const auto kernel_dtype = static_cast<unsigned>((entry >> 8) & 0xff);
  const auto result_dtype = static_cast<ScalarType>(entry & 0xff);

  Runtime& rt = *runtime_;
  const KernelSlot& slot = rt.table(id_).slots[device.type];
  if (kernel_gate(slot, *op_, device, kernel_dtype) != KernelGate::Run) return false;
  Backend* backend = rt.backend(device.type);
  if (!backend || device.index >= backend->device_count) return false;

  if (!allocate && !can_write_out<N>(tensors, out, device, sizes, result_dtype)) return false;
  if (allocate) allocate_output(*backend, device, first, result_dtype, out);

  // Contiguous tensors of the kernel's dtype: its dense entry, when it has one for the dtype.
  if ((entry & kOneDtype) && ((slot.dense_dtypes >> kernel_dtype) & 1u) &&
      (all_keys & out.fast_key() & Tensor::kKeyContiguous)) {
    const void* inputs[N];
    for (int i = 0; i < N; ++i) inputs[i] = first_element(*tensors[i]);
    bp_value boxed[S > 0 ? S : 1];
    for (int j = 0; j < S; ++j) boxed[j] = box_scalar(scalars[j]);
    bp_dense_call call;  // struct_size, device_index and kernel_ctx: call_dense_kernel's
    call.out = const_cast<void*>(first_element(out));
    call.inputs = inputs;
    call.scalars = S > 0 ? boxed : nullptr;
    call.numel = first.numel();
    call.dtype = static_cast<bp_dtype>(kernel_dtype);
    call.out_dtype = static_cast<bp_dtype>(result_dtype);
    if (call_dense_kernel(slot, *op_, device, call)) return true;
  }
  call_boxed<N, S>(slot, device, tensors, scalars, out);
  return true;
}

template <int N, int S>
inline void ElementwiseCall::call_boxed(const KernelSlot& slot, Device device,
                                        const Tensor* const* tensors, const Scalar* scalars,
                                        const Tensor& out) const {
  // The arguments in schema order, then the output: what the boxed path's CallFrame builds.
  bp_tensor descriptors[N + 1];
  bp_value values[N + S + 1];
  for (int i = 0; i < N; ++i) {
    describe_tensor_into(*tensors[i], &descriptors[i]);
    values[i].tag = BP_VALUE_TENSOR;
    values[i].u.tensor = &descriptors[i];
  }
  for (int j = 0; j < S; ++j) values[N + j] = box_scalar(scalars[j]);
  describe_tensor_into(out, &descriptors[N]);
  values[N + S].tag = BP_VALUE_TENSOR;
  values[N + S].u.tensor = &descriptors[N];
  call_kernel(slot, *op_, device, values, N + S + 1, 1);
}

}  // namespace bp::detail
