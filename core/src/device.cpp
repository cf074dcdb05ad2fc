// The process-wide device type registry and Device's text form ("cuda:1"). The registry is
// append-only (a slot, once named, keeps its name for the life of the process) so a
// DeviceType value stays meaningful in every dispatch table that has seen it.
#include "backplane/core/device.hpp"

#include "backplane/core/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <charconv>
#include <limits>
#include <mutex>

namespace bp {
namespace {

class Registry {
 public:
  Registry() {
    // Fixed slots of the in-tree backends (device_types::*).
    for (std::string_view n : {"reference", "cpu", "opencl", "level_zero", "cuda", "rocm"}) {
      names_[count_++] = std::string(n);
    }
  }

  std::string name(DeviceType type) const {
    std::lock_guard lock(mu_);
    if (type < count_) return names_[type];
    return fmt::format("<unregistered {}>", type);
  }

  int find(std::string_view name) const {
    std::lock_guard lock(mu_);
    return find_locked(name);
  }

  DeviceType add(std::string_view name) {
    BP_CHECK(is_identifier(name), ErrorCode::InvalidArgument,
             "register_device_type: name '{}' is not an identifier ([a-z_][a-z0-9_]*)", name);
    std::lock_guard lock(mu_);
    if (int found = find_locked(name); found >= 0) return static_cast<DeviceType>(found);
    BP_CHECK(count_ < device_types::kMaxBackends, ErrorCode::Device,
             "register_device_type: cannot register '{}': all {} device type slots are taken "
             "({})",
             name, device_types::kMaxBackends, fmt::join(names_.begin(), names_.end(), ", "));
    names_[count_] = std::string(name);
    return count_++;
  }

  std::vector<std::string> all() const {
    std::lock_guard lock(mu_);
    return {names_.begin(), names_.begin() + count_};
  }

 private:
  static bool is_identifier(std::string_view s) {
    if (s.empty()) return false;
    auto lower = [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; };
    if (!lower(s[0])) return false;
    for (char c : s) {
      if (!lower(c) && !(c >= '0' && c <= '9')) return false;
    }
    return true;
  }

  int find_locked(std::string_view name) const {
    for (DeviceType i = 0; i < count_; ++i) {
      if (names_[i] == name) return i;
    }
    return -1;
  }

  mutable std::mutex mu_;
  std::array<std::string, device_types::kMaxBackends> names_;
  DeviceType count_ = 0;
};

Registry& registry() {
  static Registry r;  // thread-safe initialisation; never destroyed before its users
  return r;
}

std::string known_types() {
  return fmt::format("{}", fmt::join(registry().all(), ", "));
}

}  // namespace

std::string device_type_name(DeviceType type) {
  return registry().name(type);
}

int find_device_type(std::string_view name) {
  return registry().find(name);
}

DeviceType register_device_type(std::string_view name) {
  return registry().add(name);
}

std::vector<std::string> registered_device_type_names() {
  return registry().all();
}

Device Device::parse(std::string_view text) {
  const size_t colon = text.find(':');
  const std::string_view type_name = text.substr(0, colon);
  const int type = find_device_type(type_name);
  BP_CHECK(type >= 0, ErrorCode::Device, "device '{}': unknown device type '{}' (known types: {})",
           text, type_name, known_types());
  if (colon == std::string_view::npos) return Device(static_cast<DeviceType>(type), 0);

  const std::string_view index_text = text.substr(colon + 1);
  BP_CHECK(!index_text.empty(), ErrorCode::Parse,
           "device '{}': missing device index after ':' (write e.g. '{}:0')", text, type_name);
  int64_t index = 0;
  const char* end = index_text.data() + index_text.size();
  const auto [ptr, ec] = std::from_chars(index_text.data(), end, index);
  BP_CHECK(ec != std::errc::result_out_of_range &&
               !(ec == std::errc{} && ptr == end && index > std::numeric_limits<int16_t>::max()),
           ErrorCode::Parse, "device '{}': device index '{}' is out of range [0, {}]", text,
           index_text, std::numeric_limits<int16_t>::max());
  BP_CHECK(ec == std::errc{} && ptr == end, ErrorCode::Parse,
           "device '{}': device index '{}' is not a number (write e.g. '{}:0')", text, index_text,
           type_name);
  BP_CHECK(index >= 0, ErrorCode::Parse, "device '{}': device index {} is negative", text, index);
  return Device(static_cast<DeviceType>(type), static_cast<int16_t>(index));
}

std::string Device::str() const {
  return fmt::format("{}:{}", device_type_name(type), index);
}

}  // namespace bp
