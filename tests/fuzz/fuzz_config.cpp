// libFuzzer target: the runtime's TOML config file, bp::Config::parse
// (dispatch/src/config.cpp: toml++, then every key's checks, device selectors and operator
// names), and the queries made of a parsed config before and after plugins load.
//
// Input: the config text as is. A bp::Error is the expected answer to a bad file (and to
// validate_backends() naming an unknown backend). A bug is anything else: a crash, a
// sanitizer report, a hang, another exception type (a toml::parse_error escaping, say), or
// a parsed config that contradicts itself: every op forced_ops() lists must be one
// forces_fallback() answers true for, and the selectors it holds must round-trip.
#include <backplane/core/error.hpp>
#include <backplane/dispatch/config.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"

namespace {

void check_selector(const bp::DeviceSelector& s, std::string_view key) {
  // The default selector prints as "", which is not a selector (selector.hpp: str()).
  if (s.is_default()) return;
  const std::string text = s.str();
  try {
    FUZZ_CHECK(bp::DeviceSelector::parse(text) == s,
               std::string(key) + ": parse(str()) differs: '" + text + "'");
  } catch (const bp::Error& e) {
    FUZZ_CHECK(false, std::string(key) + ": str() does not parse: '" + text + "': " + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  bp::Config config;
  try {
    config = bp::Config::parse(text, "fuzz.toml", "/etc/backplane");
  } catch (const bp::Error&) {
    return 0;
  }
  // What `backplane info` prints, and what discovery asks before opening plugin files.
  for (const bp::Config::Entry& e : config.entries())
    FUZZ_CHECK(!e.key.empty(), "an entry without a key (value '" + e.value + "')");
  check_selector(config.devices.priority.value, "devices.priority");
  if (config.devices.default_device.value)
    check_selector(*config.devices.default_device.value, "devices.default");
  check_selector(config.default_selector(), "default_selector()");
  for (const char* file : {"/opt/libbackplane_plugin_cuda.so", "libbackplane_plugin_acme.so",
                           "/x/acme.so", "libbackplane_plugin_.so"})
    (void)config.skip_reason(file);
  for (const char* plugin : {"cuda", "cpu", "acme", ""}) (void)config.denies_plugin(plugin);

  std::vector<std::string> backends = {"reference", "cpu", "cuda", "acme_npu"};
  for (const auto& [backend, ops] : config.fallback.ops) backends.push_back(backend);
  for (const std::string& backend : backends) {
    for (const std::string& op : config.forced_ops(backend))
      FUZZ_CHECK(config.forces_fallback(backend, op),
                 "forced_ops('" + backend + "') lists '" + op + "' but forces_fallback is false");
    (void)config.forces_fallback(backend, "add.Tensor");
  }
  // After loading: names the config mentions checked against what registered.
  const std::vector<std::string> loaded = {"reference", "cpu", "cuda", "acme_npu"};
  const std::vector<std::string> plugins = {"reference", "cpu", "cuda", "acme"};
  try {
    config.validate_backends(loaded, plugins);
  } catch (const bp::Error&) {
  }
  return 0;
}
