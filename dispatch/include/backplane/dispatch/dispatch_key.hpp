// DispatchKeySet: which dispatch keys a call carries, in one 64-bit word. A plain value
// (thread-safe).
//
// Note [Dispatch key layout]
// Bits 0..47 are backend slots, one per device type (bp::DeviceType: the built-in backends
// have fixed slots, out-of-tree backends get the next free slot by name when they register;
// there is no single "PrivateUse1"). Bits 48..63 are layer keys: kernels that sit above
// every backend (layers.hpp). A call's key set is its device's backend bit ORed with the
// layers that are on, (enabled process-wide | this thread's include mask) & ~this thread's
// exclude mask; the highest set bit (count-leading-zeros) picks the kernel. A layer kernel
// re-dispatches below itself: the call goes on with the keys under its own, down to the
// backend's kernel. A layer with no kernel for the op is passed over. When no layer is on
// (the common case) a call tests one relaxed atomic word and goes straight to its backend.
#pragma once

#include "backplane/core/device.hpp"

#include <bit>
#include <cstdint>

namespace bp {

// The layer keys, lowest priority first. Tracing sits lowest, so a trace sees each call as
// the backend runs it (kernel, composite or CPU fallback). The User keys are for
// applications and tests (a call counter, a checker); future layers (profiling, autograd)
// take keys between them.
enum class LayerKey : uint8_t {
  Tracing = 48,
  User0 = 56,
  User1 = 57,
  User2 = 58,
  User3 = 59,
};
inline constexpr unsigned kFirstLayerKey = 48;
inline constexpr unsigned kNumLayerKeys = 16;

class DispatchKeySet {
 public:
  constexpr DispatchKeySet() = default;
  constexpr explicit DispatchKeySet(uint64_t bits) : bits_(bits) {}
  static constexpr DispatchKeySet backend(DeviceType type) {
    return DispatchKeySet(uint64_t{1} << type);
  }
  static constexpr DispatchKeySet layer(LayerKey key) {
    return DispatchKeySet(uint64_t{1} << static_cast<uint8_t>(key));
  }

  constexpr DispatchKeySet operator|(DispatchKeySet o) const {
    return DispatchKeySet(bits_ | o.bits_);
  }
  constexpr DispatchKeySet operator&(DispatchKeySet o) const {
    return DispatchKeySet(bits_ & o.bits_);
  }
  constexpr DispatchKeySet remove(DispatchKeySet o) const {
    return DispatchKeySet(bits_ & ~o.bits_);
  }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr bool has(unsigned key) const { return (bits_ >> key) & 1u; }
  // Index of the highest-priority key; undefined for an empty set.
  constexpr unsigned highest() const {
    return 63u - static_cast<unsigned>(std::countl_zero(bits_));
  }
  constexpr uint64_t raw() const { return bits_; }
  constexpr DispatchKeySet backends_only() const {
    return DispatchKeySet(bits_ & ((uint64_t{1} << device_types::kMaxBackends) - 1));
  }

 private:
  uint64_t bits_ = 0;
};

}  // namespace bp
