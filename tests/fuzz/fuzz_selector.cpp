// libFuzzer target: the device selector grammar, bp::DeviceSelector::parse
// (dispatch/src/selector.cpp), its canonical text and what it selects.
//
// Input: the selector text as is ($BACKPLANE_DEVICE, devices.priority). A bp::Error is the
// expected answer to bad text. A bug is anything else: a crash, a sanitizer report, a hang,
// another exception type, or a parsed selector that breaks its contract: parse(str()) must
// give an equal selector with the same text; select() over a fixed list of backends must
// return only existing devices of admitted backends, each once; first_available() must be
// select()'s first device or a bp::Error when there is none.
#include <backplane/core/error.hpp>
#include <backplane/dispatch/selector.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"

namespace {

// What a runtime could have loaded: built-in slots, a backend without devices, an
// out-of-tree backend in a dynamic slot, and the reference oracle.
const std::vector<bp::BackendInfo>& available() {
  static const std::vector<bp::BackendInfo> list = {
      {"reference", bp::device_types::Reference, "reference", 1, ""},
      {"cpu", bp::device_types::CPU, "cpu", 2, ""},
      {"cuda", bp::device_types::CUDA, "cuda", 0, "no CUDA driver"},
      {"opencl", bp::device_types::OpenCL, "opencl", 3, ""},
      {"acme_npu", bp::device_types::kFirstDynamic, "acme", 4, ""},
  };
  return list;
}

const bp::BackendInfo* info_of(bp::DeviceType type) {
  for (const bp::BackendInfo& b : available())
    if (b.type == type) return &b;
  return nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  bp::DeviceSelector selector;
  try {
    selector = bp::DeviceSelector::parse(text);
  } catch (const bp::Error&) {
    return 0;
  }
  const std::string canonical = selector.str();
  bp::DeviceSelector again;
  try {
    again = bp::DeviceSelector::parse(canonical);
  } catch (const bp::Error& e) {
    FUZZ_CHECK(false, "str() does not parse: '" + canonical + "': " + e.what());
  }
  FUZZ_CHECK(again == selector, "parse(str()) differs from the selector: '" + canonical + "'");
  FUZZ_CHECK(again.str() == canonical, "str() is not stable: '" + canonical + "'");
  FUZZ_CHECK(selector.is_default() == canonical.empty(), "is_default() disagrees with str()");

  const std::vector<bp::Device> chosen = selector.select(available());
  for (size_t i = 0; i < chosen.size(); ++i) {
    const bp::Device d = chosen[i];
    const bp::BackendInfo* b = info_of(d.type);
    FUZZ_CHECK(b != nullptr, "selected a device of no available backend: " + canonical);
    FUZZ_CHECK(d.index >= 0 && d.index < b->device_count,
               "selected a device that does not exist: " + canonical);
    FUZZ_CHECK(!selector.excludes_backend(b->name),
               "selected a device of an excluded backend '" + b->name + "': " + canonical);
    FUZZ_CHECK(std::count(chosen.begin(), chosen.end(), d) == 1,
               "selected a device twice: " + canonical);
  }
  try {
    const bp::Device first = selector.first_available(available());
    FUZZ_CHECK(!chosen.empty() && first == chosen.front(),
               "first_available() is not select()'s first device: " + canonical);
  } catch (const bp::Error&) {
    FUZZ_CHECK(chosen.empty(), "first_available() threw but select() found devices");
  }

  std::vector<std::string> known;
  for (const bp::BackendInfo& b : available()) known.push_back(b.name);
  const std::vector<std::string> unknown = selector.unknown_backends(known);
  try {
    selector.validate(known);
    FUZZ_CHECK(unknown.empty(), "validate() accepted an unknown backend: " + canonical);
  } catch (const bp::Error&) {
    FUZZ_CHECK(!unknown.empty(), "validate() threw but no backend is unknown: " + canonical);
  }
  return 0;
}
