// DispatchKeySet: which dispatch keys a call carries, in one 64-bit word. A plain value
// (thread-safe).
//
// Note [Dispatch key layout]
// Bits 0..47 are backend slots, one per device type (bp::DeviceType: the built-in backends
// have fixed slots, out-of-tree backends get the next free slot by name when they register;
// there is no single "PrivateUse1"). Bits 48..63 are layer keys (tracing, validation) that
// sit above every backend and re-dispatch below themselves. A call ORs the keys of its
// tensor arguments and picks the highest set bit with count-leading-zeros; since a call may
// mix devices only through 0-d CPU tensors, and the CPU slot is lower than every
// accelerator slot, the device tensor's backend wins.
#pragma once

#include "backplane/core/device.hpp"

#include <bit>
#include <cstdint>

namespace bp {

enum class LayerKey : uint8_t {
  Tracing = 48,
  Validation = 49,
};

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
