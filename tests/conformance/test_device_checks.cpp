// Tests of the device-API checks (conformance/src/device_checks.cpp, device_api/): every check
// passes on the built-in reference device and on the CPU plugin's device; on buggy_device
// (tests/plugins/buggy/: alloc ignores the alignment, device-to-host copies drop the last
// byte) the alignment and device-to-host checks fail with a message naming the call and the
// problem; and on a test-local device with deferred (really asynchronous) streams the stream
// checks pass only because the checks synchronise.
#include <backplane/conformance/device_checks.hpp>

#include <doctest/doctest.h>

#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace bp::conformance {
namespace {

const DeviceCheck& find_check(const std::string& name) {
  for (const DeviceCheck& c : device_checks())
    if (c.name == name) return c;
  FAIL("no device check named " << name);
  throw 0;  // unreachable: FAIL throws
}

// Runs every check (quick and full) on `raw`; returns name -> message.
std::map<std::string, std::string> run_all(const RawDeviceApi& raw) {
  std::map<std::string, std::string> out;
  for (const DeviceCheck& c : device_checks()) out[c.name] = c.run(raw);
  return out;
}

void require_all_pass(Device device) {
  const RawDeviceApi raw = raw_device_api(device);
  REQUIRE(raw.api != nullptr);
  for (const auto& result : run_all(raw)) {
    INFO(device.str() << " check " << result.first);
    CHECK(result.second == "");
  }
}

// Loads the plugin at `path` unless its backend is already there (another test case of this
// binary may have loaded it).
void load_once(const std::string& path, const std::string& backend) {
  for (const BackendInfo& b : backends())
    if (b.name == backend) return;
  const PluginLoadReport report = load_plugin(path, LoadOptions{false});
  INFO(report.message);
  REQUIRE(report.status == LoadStatus::Loaded);
}

TEST_CASE("device checks: names are unique, well-formed, and cover the device API") {
  std::set<std::string> names;
  const std::regex well_formed("[a-z0-9_.]+");
  for (const DeviceCheck& c : device_checks()) {
    CHECK(std::regex_match(c.name, well_formed));
    CHECK(names.insert(c.name).second);
    CHECK(static_cast<bool>(c.run));
  }
  for (const char* required :
       {"properties", "properties_bad_index", "alloc_zero_bytes", "alloc_one_byte",
        "alloc_odd_sizes", "alloc_64mib", "alloc_256mib", "alignment", "alignment_not_power_of_two",
        "free_null", "allocations_disjoint", "copy_host_to_device", "copy_device_to_host",
        "copy_device_to_device", "copy_zero_bytes", "streams_create_destroy", "stream_ordering",
        "stream_and_default_stream", "synchronize_default"})
    CHECK(names.count(required) == 1);
  CHECK_FALSE(find_check("alloc_64mib").quick);
  CHECK_FALSE(find_check("alloc_256mib").quick);
  CHECK(find_check("alignment").quick);
}

TEST_CASE("device checks: all pass on the reference device") {
  require_all_pass(Device{device_types::Reference, 0});
}

TEST_CASE("device checks: all pass on the CPU plugin's device") {
  load_once(std::string(BP_PLUGIN_DIR) + "/libbackplane_plugin_cpu.so", "cpu");
  require_all_pass(Device::parse("cpu:0"));
}

TEST_CASE("device checks: buggy_device fails alignment and device-to-host, named") {
  load_once(std::string(BP_FIXTURE_DIR) + "/libbp_fixture_device.so", "buggy_device");
  const std::map<std::string, std::string> results =
      run_all(raw_device_api(Device::parse("buggy_device:0")));

  // alloc returns malloc + 8: aligned to 8, never to 16.
  const std::string& alignment = results.at("alignment");
  INFO("alignment: " << alignment);
  CHECK(alignment.find("alloc(index 0, 1 bytes, alignment 16)") != std::string::npos);
  CHECK(alignment.find("not a multiple of the alignment 16") != std::string::npos);
  CHECK(alignment.find("address % alignment = 8") != std::string::npos);

  // The first copy (1 byte, no offsets) already loses its only byte.
  const std::string& d2h = results.at("copy_device_to_host");
  INFO("copy_device_to_host: " << d2h);
  CHECK(d2h.find("copy(index 0, device-to-host, dst host+0, src device+0, 1 bytes, default "
                 "stream)") != std::string::npos);
  CHECK(d2h.find("the last byte of the copied range") != std::string::npos);

  // The device is host-accessible, so the other checks observe memory directly and do not
  // depend on the broken direction: they pass.
  for (const char* ok :
       {"properties", "properties_bad_index", "alloc_zero_bytes", "alloc_odd_sizes",
        "allocations_disjoint", "copy_host_to_device", "copy_device_to_device", "copy_zero_bytes",
        "free_null", "alignment_not_power_of_two"}) {
    INFO(ok << ": " << results.at(ok));
    CHECK(results.at(ok) == "");
  }
  // Stream checks read back with device-to-host copies: they see the lost byte too.
  CHECK(results.at("stream_ordering").find("device-to-host") != std::string::npos);
}

// ---- a test-local device whose created streams really defer work --------------------------
// Host memory, not host-accessible (so every read goes through device-to-host copies),
// with streams that queue copies until synchronize or destroy. `flaw` makes one part
// wrong so the checks' failures can be seen.
struct DeferredDevice {
  enum class Flaw {
    None,
    DestroyDropsWork,
    SyncIgnoresStreams,
    ZeroStream,
    PropsOutOfRangeOk,
    FreeNullFails
  };
  Flaw flaw = Flaw::None;
  std::mutex mu;
  std::map<void*, std::vector<std::function<void()>>> queues;
  int next_stream = 1;
  char stream_ids[64] = {};  // addresses used as stream handles

  static DeferredDevice& of(void* ctx) { return *static_cast<DeferredDevice*>(ctx); }

  static bp_status count(void*, int32_t* n, const char** reason) {
    *n = 1;
    if (reason) *reason = nullptr;
    return BP_OK;
  }
  static bp_status props(void* ctx, int32_t index, bp_device_props* out) {
    if (index != 0 && of(ctx).flaw != Flaw::PropsOutOfRangeOk) return BP_ERR_INVALID_ARGUMENT;
    const size_t size = out->struct_size;
    std::memset(out, 0, size);
    out->struct_size = size;
    std::strcpy(out->name, "deferred test device");
    out->dtypes = BP_DTYPES_ALL;
    return BP_OK;
  }
  static bp_status alloc(void*, int32_t, size_t bytes, size_t alignment, void** out) {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) return BP_ERR_INVALID_ARGUMENT;
    if (alignment < 16) alignment = 16;
    *out =
        std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment + alignment);
    return *out ? BP_OK : BP_ERR_OUT_OF_MEMORY;
  }
  static bp_status release(void* ctx, int32_t, void* p) {
    if (p == nullptr && of(ctx).flaw == Flaw::FreeNullFails) return BP_ERR_INTERNAL;
    std::free(p);
    return BP_OK;
  }
  static bp_status copy(void* ctx, int32_t, bp_copy_kind, void* dst, const void* src, size_t n,
                        void* stream) {
    if (stream == nullptr) {
      if (n) std::memmove(dst, src, n);
      return BP_OK;
    }
    DeferredDevice& d = of(ctx);
    std::lock_guard lock(d.mu);
    d.queues.at(stream).push_back([=] { std::memmove(dst, src, n); });
    return BP_OK;
  }
  static bp_status create(void* ctx, int32_t, void** out) {
    DeferredDevice& d = of(ctx);
    std::lock_guard lock(d.mu);
    void* s = d.flaw == Flaw::ZeroStream ? nullptr : &d.stream_ids[d.next_stream++ % 64];
    d.queues[s];
    *out = s;
    return BP_OK;
  }
  void drain(void* s) {
    std::vector<std::function<void()>> work;
    {
      std::lock_guard lock(mu);
      auto it = queues.find(s);
      if (it == queues.end()) return;
      work.swap(it->second);
    }
    for (auto& w : work) w();
  }
  static bp_status destroy(void* ctx, int32_t, void* s) {
    DeferredDevice& d = of(ctx);
    if (d.flaw != Flaw::DestroyDropsWork) d.drain(s);
    std::lock_guard lock(d.mu);
    d.queues.erase(s);
    return BP_OK;
  }
  static bp_status sync(void* ctx, int32_t, void* s) {
    if (s != nullptr && of(ctx).flaw != Flaw::SyncIgnoresStreams) of(ctx).drain(s);
    return BP_OK;
  }
};

const bp_device_api kDeferredApi = {sizeof(bp_device_api),   DeferredDevice::count,
                                    DeferredDevice::props,   DeferredDevice::alloc,
                                    DeferredDevice::release, DeferredDevice::copy,
                                    DeferredDevice::create,  DeferredDevice::destroy,
                                    DeferredDevice::sync,    nullptr};

TEST_CASE("device checks: a device with deferred streams passes; its flaws are named") {
  DeferredDevice dev;
  RawDeviceApi raw{&kDeferredApi, &dev, 0, "deferred"};
  SUBCASE("correct") {
    for (const auto& result : run_all(raw)) {
      INFO(result.first);
      CHECK(result.second == "");
    }
  }
  SUBCASE("a stream whose copies never run without synchronize: the checks synchronise") {
    // Work left on a stream at destroy is dropped here; the checks never destroy a stream
    // with work pending, so they still pass.
    dev.flaw = DeferredDevice::Flaw::DestroyDropsWork;
    CHECK(find_check("stream_ordering").run(raw) == "");
    CHECK(find_check("stream_and_default_stream").run(raw) == "");
  }
  SUBCASE("synchronize that does not wait for a stream's work") {
    dev.flaw = DeferredDevice::Flaw::SyncIgnoresStreams;
    const std::string m = find_check("stream_ordering").run(raw);
    CHECK(m.find("then synchronize: b (as read back by the stream's last copies) byte ") !=
          std::string::npos);
    CHECK(find_check("stream_and_default_stream").run(raw).find("synchronize") !=
          std::string::npos);
  }
  SUBCASE("stream_create returning NULL") {
    dev.flaw = DeferredDevice::Flaw::ZeroStream;
    const std::string m = find_check("streams_create_destroy").run(raw);
    CHECK(m.find("stream_create(index 0) returned") != std::string::npos);
    CHECK(m.find("non-NULL and distinct") != std::string::npos);
  }
  SUBCASE("device_properties accepting an out-of-range index") {
    dev.flaw = DeferredDevice::Flaw::PropsOutOfRangeOk;
    const std::string m = find_check("properties_bad_index").run(raw);
    CHECK(m ==
          "device_properties(index 1) returned BP_OK for an index out of range "
          "(device_count is 1)");
  }
  SUBCASE("free(NULL) returning an error status is accepted") {
    dev.flaw = DeferredDevice::Flaw::FreeNullFails;
    CHECK(find_check("free_null").run(raw) == "");
  }
  SUBCASE("only one of stream_create / stream_destroy") {
    bp_device_api half = kDeferredApi;
    half.stream_destroy = nullptr;
    const RawDeviceApi broken{&half, &dev, 0, "deferred"};
    CHECK(find_check("streams_create_destroy").run(broken) ==
          "stream_create is set but stream_destroy is NULL: the two come together");
  }
}

}  // namespace
}  // namespace bp::conformance
