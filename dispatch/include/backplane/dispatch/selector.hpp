// The device selector: one grammar for the config file (devices.priority, devices.default),
// the environment ($BACKPLANE_DEVICE) and the CLI (--device). It says which backends may be
// used (so the plugins of excluded backends are never opened), in which order, and which
// device is the default. docs/config.md, "Device selectors", is the user's description.
//
//   selector := item (',' item)*
//   item     := backend [':' (index | '*')]      one device, or every device of a backend
//             | '!' backend                      exclude a whole backend
//   backend  := [a-z_][a-z0-9_]*                 index := [0-9]+ (at most 32767)
//
// Whitespace is allowed around items and tokens. Backend names are not checked when
// parsing (out-of-tree backends register at load time); validate() checks them once the
// known names are. A DeviceSelector is a plain value: copyable and thread-safe to read.
#pragma once

#include "backplane/core/device.hpp"
#include "backplane/dispatch/runtime.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bp {

class DeviceSelector {
 public:
  // One positive item: a backend and one device index, or every device (index empty).
  struct Item {
    std::string backend;
    std::optional<int> index;  // nullopt: "cuda" or "cuda:*"
    friend bool operator==(const Item&, const Item&) = default;
  };

  // The default selector: every backend in the default priority, nothing excluded.
  DeviceSelector() = default;

  // Parses `text` (the grammar above). Throws bp::Error(ErrorCode::Parse) naming the text,
  // the 1-based column and what was expected there, e.g.
  //   device selector 'cuda:x': column 6: expected a device index or '*' after ':'
  // A backend both listed and negated ("cuda,!cuda") is an error too.
  static DeviceSelector parse(std::string_view text);

  // The default order of backends when a selector lists none: accelerators first, then the
  // CPU; out-of-tree backends follow in registration order and the reference oracle comes
  // last (as Runtime::default_device() does).
  static std::span<const std::string_view> default_priority();

  // True when the plugin of `backend` need not be opened: the backend is negated, or the
  // selector lists backends and this one is not among them.
  bool excludes_backend(std::string_view backend) const;

  // The devices the selector admits among `available`, best first, each once. `available`
  // lists the backends in registration order (as bp::backends() returns them); the Device
  // of a result carries the BackendInfo's type. A listed device index a backend does not
  // have is skipped (first_available() names it when nothing is left).
  std::vector<Device> select(std::span<const BackendInfo> available) const;

  // The first device of select(). Throws bp::Error(ErrorCode::Device) naming the selector
  // and every available backend with its device count (and its no-device reason) when
  // nothing matches.
  Device first_available(std::span<const BackendInfo> available) const;

  // The backend names the selector mentions (listed or negated) that are not in `known`, in
  // the order written.
  std::vector<std::string> unknown_backends(std::span<const std::string> known) const;
  // Throws bp::Error(ErrorCode::InvalidArgument) for the first unknown backend name:
  //   device selector 'cdua:0': unknown backend 'cdua' (known: cpu, cuda, reference);
  //   did you mean 'cuda'?
  void validate(std::span<const std::string> known) const;

  // Canonical text: "" for the default selector, else the items as parsed in normal form
  // ("cuda:0, opencl:*" -> "cuda:0,opencl:*", "opencl" -> "opencl:*"); parse(str()) gives
  // an equal selector.
  std::string str() const;

  bool is_default() const { return items_.empty() && excluded_.empty(); }
  const std::vector<Item>& items() const { return items_; }               // listed, in order
  const std::vector<std::string>& excluded() const { return excluded_; }  // negated

  friend bool operator==(const DeviceSelector&, const DeviceSelector&) = default;

 private:
  std::vector<Item> items_;
  std::vector<std::string> excluded_;
};

// "unknown backend 'x' (known: a, b, c); did you mean 'y'?" for a name not in `known`;
// `what` prefixes the message ("device selector 'x:0'", "fallback.ops"). Shared with the
// config's validation so both word it the same.
std::string unknown_backend_message(std::string_view what, std::string_view name,
                                    std::span<const std::string> known);

}  // namespace bp
