// Helpers for the dispatch tests: the fixture libraries of tests/plugins/ by name, a
// scratch plugin directory, capturing what the runtime prints on stderr, running a check
// with only the built-in reference backend usable, the message of an expected error, and
// the allocator mode set for one scope, an in-process device over malloc, and the CPU plugin
// loaded for one test.
#pragma once

#include <backplane/plugin.h>
#include <backplane/backplane.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

namespace bp::test {

namespace fs = std::filesystem;

// Sets the allocator mode (bp::set_allocator_mode) until the end of the scope.
struct AllocatorModeGuard {
  AllocatorMode saved = allocator_mode();
  explicit AllocatorModeGuard(AllocatorMode mode) { set_allocator_mode(mode); }
  ~AllocatorModeGuard() { set_allocator_mode(saved); }
  AllocatorModeGuard(const AllocatorModeGuard&) = delete;
  AllocatorModeGuard& operator=(const AllocatorModeGuard&) = delete;
};

// The message of the bp::Error `f` throws, "(no error)" when it throws none; with `code`,
// also checks the error's code.
inline std::string error_of(const std::function<void()>& f,
                            std::optional<ErrorCode> code = std::nullopt) {
  try {
    f();
  } catch (const Error& e) {
    if (code) CHECK(e.code() == *code);
    return e.what();
  }
  return "(no error)";
}

// tests/plugins/<name> as built: libbp_fixture_<name>.so, or a file named as given.
inline fs::path fixture(const std::string& name) {
  const fs::path dir = BP_FIXTURE_DIR;
  return name.ends_with(".so") ? dir / name : dir / ("libbp_fixture_" + name + ".so");
}

// A fresh directory under the temp folder, removed at the end of the test.
struct ScratchDir {
  fs::path dir;
  explicit ScratchDir(const std::string& tag)
      : dir(fs::temp_directory_path() / ("bp_" + tag + "_" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  // Copies a fixture in as libbackplane_plugin_<as>.so (what discovery picks up).
  fs::path add_plugin(const std::string& fixture_name, const std::string& as) const {
    const fs::path to = dir / ("libbackplane_plugin_" + as + ".so");
    fs::copy_file(fixture(fixture_name), to);
    return to;
  }
};

// A device API for the C plugins the tests define in-process: one host-accessible device
// over malloc (the broken-plugin fixtures' "one device, malloc"), reduced to what the
// runtime calls.
struct MallocDeviceApi {
  static bp_status count(void*, int32_t* n, const char** reason) {
    *n = 1;
    if (reason) *reason = nullptr;
    return BP_OK;
  }
  static bp_status props(void*, int32_t, bp_device_props* p) {
    p->flags = BP_DEVICE_HOST_ACCESSIBLE;
    p->dtypes = BP_DTYPES_ALL;
    return BP_OK;
  }
  static bp_status alloc(void*, int32_t, size_t bytes, size_t alignment, void** out) {
    *out =
        std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment + alignment);
    return *out ? BP_OK : BP_ERR_OUT_OF_MEMORY;
  }
  static bp_status release(void*, int32_t, void* ptr) {
    std::free(ptr);
    return BP_OK;
  }
  static bp_status copy(void*, int32_t, bp_copy_kind, void* dst, const void* src, size_t bytes,
                        void*) {
    std::memmove(dst, src, bytes);
    return BP_OK;
  }
};
inline constexpr bp_device_api kMallocDeviceApi = {sizeof(bp_device_api),
                                                   MallocDeviceApi::count,
                                                   MallocDeviceApi::props,
                                                   MallocDeviceApi::alloc,
                                                   MallocDeviceApi::release,
                                                   MallocDeviceApi::copy,
                                                   nullptr,
                                                   nullptr,
                                                   nullptr,
                                                   nullptr};

#ifdef BP_PLUGIN_DIR  // (the binaries that load the build's plugins define it)
// The CPU plugin, loaded for one test (other tests of the binary expect it absent), e.g. as
// the target of a forced fallback.
struct CpuPluginForTest {
  PluginLoadReport report = load_plugin(std::string(BP_PLUGIN_DIR) + "/libbackplane_plugin_cpu.so");
  CpuPluginForTest() = default;
  CpuPluginForTest(const CpuPluginForTest&) = delete;
  CpuPluginForTest& operator=(const CpuPluginForTest&) = delete;
  ~CpuPluginForTest() {
    if (report.status == LoadStatus::Loaded) unregister_plugin(report.plugin);
  }
};
#endif

// What `f` wrote to file descriptor 2 (stderr).
inline std::string capture_stderr(const std::function<void()>& f) {
  std::fflush(stderr);
  std::FILE* sink = std::tmpfile();
  const int saved = ::dup(2);
  ::dup2(::fileno(sink), 2);
  try {
    f();
  } catch (...) {
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    std::fclose(sink);
    throw;
  }
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::string text;
  std::rewind(sink);
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, sink)) text.append(buffer, n);
  std::fclose(sink);
  return text;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

// Unloads every plugin other than the built-in reference that has a device (the CPU
// plugin other tests of this binary may have loaded), and loads each back from its file
// when destroyed: "no usable backend" can then be checked in any test order.
class OnlyReferenceUsable {
 public:
  OnlyReferenceUsable() {
    const std::vector<PluginLoadReport> reports = plugin_reports();
    for (const BackendInfo& b : backends()) {
      if (b.type == device_types::Reference || b.device_count == 0) continue;
      if (std::find(names_.begin(), names_.end(), b.plugin) != names_.end()) continue;
      names_.push_back(b.plugin);
      std::string path;
      for (const PluginLoadReport& r : reports)
        if (r.plugin == b.plugin && r.status == LoadStatus::Loaded) path = r.path;
      unregister_plugin(b.plugin);
      unloaded_.push_back(path);
    }
  }
  ~OnlyReferenceUsable() {
    for (const std::string& path : unloaded_)
      if (!path.empty()) load_plugin(path);
  }
  OnlyReferenceUsable(const OnlyReferenceUsable&) = delete;
  OnlyReferenceUsable& operator=(const OnlyReferenceUsable&) = delete;

 private:
  std::vector<std::string> names_;
  std::vector<std::string> unloaded_;  // their library files ("" for a built-in plugin)
};

}  // namespace bp::test
