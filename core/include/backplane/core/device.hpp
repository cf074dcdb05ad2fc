// Device: a device type (a backend's dispatch slot) and an index, printed and parsed as
// "cuda:1". Device type names are interned in a process-wide, append-only registry: the
// built-in backends have fixed slots; out-of-tree backends get the next free slot when they
// register. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace bp {

using DeviceType = uint8_t;

namespace device_types {
inline constexpr DeviceType Reference = 0;
inline constexpr DeviceType CPU = 1;
inline constexpr DeviceType OpenCL = 2;
inline constexpr DeviceType LevelZero = 3;
inline constexpr DeviceType CUDA = 4;
inline constexpr DeviceType ROCm = 5;
inline constexpr DeviceType kFirstDynamic = 6;
// Slots 0..kMaxBackends-1 are backends; the dispatch key set keeps the bits above them for
// layers (tracing, validation).
inline constexpr DeviceType kMaxBackends = 48;
}  // namespace device_types

// Name of a registered device type ("cuda"); "<unregistered N>" for an unused slot.
std::string device_type_name(DeviceType type);
// Slot of a known name, or -1.
int find_device_type(std::string_view name);
// Slot for `name`, assigning the next free one if new. Throws bp::Error when all slots
// are taken or the name is not an identifier ([a-z_][a-z0-9_]*).
DeviceType register_device_type(std::string_view name);
std::vector<std::string> registered_device_type_names();

struct Device {
  DeviceType type = device_types::Reference;
  int16_t index = 0;

  constexpr Device() = default;
  constexpr Device(DeviceType t, int16_t i = 0) : type(t), index(i) {}

  // "cuda:1", "cpu" (index 0), "opencl:0". Unknown type names and malformed text throw
  // bp::Error naming the text and the known types.
  static Device parse(std::string_view text);
  std::string str() const;  // canonical "type:index"

  friend constexpr bool operator==(Device a, Device b) {
    return a.type == b.type && a.index == b.index;
  }
};

}  // namespace bp

template <>
struct std::hash<bp::Device> {
  size_t operator()(bp::Device d) const noexcept {
    return (size_t{d.type} << 16) ^ static_cast<uint16_t>(d.index);
  }
};
