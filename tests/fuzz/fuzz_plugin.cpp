// libFuzzer target: the plugin descriptor and the host side of the C ABI
// (dispatch/src/runtime*.cpp, introspection.cpp), driven by a plugin whose every answer
// comes from the input. bp::register_plugin gets a descriptor with fuzzed struct_size, ABI
// versions and name/version/vendor strings (NULL, empty, not NUL-terminated within the 4096
// bytes the host may read, garbage); its init makes a fuzzed sequence of host API calls:
// register_backend (NULL, taken, invalid and unterminated names; a device API with a
// fuzzed struct_size and NULL slots; a NULL out-id; a NULL host pointer), register_kernel
// (bad backend ids, catalog and garbage op names, dtype masks, NULL or second kernels),
// set_error and log (NULL messages), and returns a fuzzed status or throws. The device API
// answers with fuzzed statuses, device counts (negative, huge), properties whose strings
// have no NUL and whose struct_size lies, and allocations that fail or return NULL.
// Afterwards the target reads what the host kept (bp::backends(), bp::devices()), allocates
// on each new device, calls the host API after init (which must be refused) and
// unregisters the plugin, so every input starts from the same runtime.
//
// A bp::Error from the runtime's C++ API and error statuses from the host API are the
// expected answers. A bug is anything else: a crash, a sanitizer report, a hang, another
// exception type, a host call after init that succeeds, device strings the host did not
// terminate, shutdown called other than once after a successful init, or state left behind
// (backends still registered after the plugin is unregistered or refused).
#include <backplane/plugin.h>
#include <backplane/backplane.hpp>
#include <backplane/core/catalog.hpp>
#include <backplane/core/error.hpp>
#include <backplane/dispatch/memory.hpp>
#include <backplane/dispatch/runtime.hpp>

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_support.hpp"

namespace {

// How one fuzzed backend's device API behaves; its address is the backend's ctx.
struct DeviceBehaviour {
  bp_status count_status = BP_OK;
  int32_t count = 0;
  const char* reason = nullptr;
  bp_status props_status = BP_OK;
  int32_t props_fail_index = -1;     // device_properties fails from this index on
  std::vector<uint8_t> props_bytes;  // the raw image written over bp_device_props
  size_t props_struct_size = 0;
  bp_status alloc_status = BP_OK;
  bool alloc_null = false;  // BP_OK with a NULL pointer for a non-empty allocation
  bp_status copy_status = BP_OK;
};

// The state of the current input. Device APIs and behaviours live in static storage rather
// than per input: the runtime keeps an unregistered backend's api pointer (and promises not
// to call it); were the promise broken, freed memory of our own would turn that into an ASan
// report that blames this file instead of the runtime.
struct State {
  FuzzedDataProvider* p = nullptr;
  std::deque<std::vector<char>> strings;  // every string handed to the host this input
  const bp_host_api* host = nullptr;
  uint32_t last_backend_id = 0;
  int shutdowns = 0;
  std::set<void*> allocations;
};
State g;

// One slot per register_backend call of an input (init makes at most 8 calls), so a
// registered backend's table is never rewritten while the host may call it.
constexpr int kMaxBackends = 8;
bp_device_api g_api[kMaxBackends];
DeviceBehaviour g_behaviour[kMaxBackends];
int g_backends_made = 0;

// The most the host reads of any plugin string (runtime_host_api.hpp, kMaxPluginMessage; names are
// read up to 256 bytes): an unterminated string is this long, so a host that keeps to its
// bounds stays inside it and one that calls strlen reads past it.
constexpr size_t kUnterminated = 4096;

// A string the plugin hands the host: NULL, empty, `good`, one of `others`, 4096 bytes with
// no NUL, or fuzzed text (with a '-' appended when `never_identifier`).
const char* pick_string(const char* good, std::initializer_list<const char*> others,
                        bool never_identifier) {
  FuzzedDataProvider& p = *g.p;
  switch (p.ConsumeIntegralInRange<int>(0, 9)) {
    case 0:
      return nullptr;
    case 1:
      return "";
    case 2: {
      // Not terminated within the bytes the host may read: constant text, so that a host
      // that wrongly accepts it interns one name, not a new one per input.
      g.strings.emplace_back(kUnterminated, 'u');
      return g.strings.back().data();
    }
    case 3: {
      std::string text = p.ConsumeRandomLengthString(48);
      for (char& c : text)
        if (c == '\0') c = '#';
      // Backend names are interned for good (48 slots): fuzzed text is made invalid as an
      // identifier so it never takes one.
      if (never_identifier) text += '-';
      g.strings.emplace_back(text.begin(), text.end());
      g.strings.back().push_back('\0');
      return g.strings.back().data();
    }
    case 4:
      if (others.size() > 0)
        return others.begin()[p.ConsumeIntegralInRange<size_t>(0, others.size() - 1)];
      return good;
    default:
      return good;
  }
}

bp_status pick_status() {
  FuzzedDataProvider& p = *g.p;
  switch (p.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      return p.ConsumeIntegral<int32_t>();
    case 1:
      return p.ConsumeIntegralInRange<int32_t>(1, 8);
    default:
      return BP_OK;
  }
}

size_t pick_struct_size(size_t real) {
  FuzzedDataProvider& p = *g.p;
  switch (p.ConsumeIntegralInRange<int>(0, 9)) {
    case 0:
      return p.ConsumeIntegralInRange<size_t>(0, real - 1);
    case 1:
      return std::numeric_limits<size_t>::max() - p.ConsumeIntegralInRange<size_t>(0, 8);
    case 2:
      return real + p.ConsumeIntegralInRange<size_t>(1, 64);
    default:
      return real;
  }
}

DeviceBehaviour& behaviour(void* ctx) {
  return *static_cast<DeviceBehaviour*>(ctx);
}

bp_status dev_count(void* ctx, int32_t* out_count, const char** out_reason) {
  const DeviceBehaviour& b = behaviour(ctx);
  *out_count = b.count;
  *out_reason = b.reason;
  return b.count_status;
}

bp_status dev_props(void* ctx, int32_t index, bp_device_props* out) {
  const DeviceBehaviour& b = behaviour(ctx);
  if (b.props_fail_index >= 0 && index >= b.props_fail_index) return b.props_status;
  // The whole struct from the input: strings without NUL, any flags and dtypes.
  std::memcpy(out, b.props_bytes.data(), sizeof *out);
  out->struct_size = b.props_struct_size;
  return BP_OK;
}

bp_status dev_alloc(void* ctx, int32_t, size_t bytes, size_t, void** out) {
  const DeviceBehaviour& b = behaviour(ctx);
  if (b.alloc_status != BP_OK) return b.alloc_status;
  if (b.alloc_null) {
    *out = nullptr;
    return BP_OK;
  }
  void* ptr = std::calloc(bytes == 0 ? 1 : bytes, 1);
  if (!ptr) return BP_ERR_OUT_OF_MEMORY;
  g.allocations.insert(ptr);
  *out = ptr;
  return BP_OK;
}

bp_status dev_free(void*, int32_t, void* ptr) {
  if (ptr && g.allocations.erase(ptr)) std::free(ptr);
  return BP_OK;
}

bp_status dev_copy(void* ctx, int32_t, bp_copy_kind kind, void* dst, const void* src, size_t bytes,
                   void*) {
  const DeviceBehaviour& b = behaviour(ctx);
  if (b.copy_status != BP_OK) return b.copy_status;
  if (kind > BP_COPY_DEVICE_TO_DEVICE) return BP_ERR_INVALID_ARGUMENT;
  if (bytes) std::memmove(dst, src, bytes);  // device memory is host memory here
  return BP_OK;
}

bp_status kernel_a(const bp_call*) {
  return BP_ERR_INTERNAL;
}
bp_status kernel_b(const bp_call*) {
  return BP_ERR_INTERNAL;
}

// A device API and its behaviour for the next register_backend, from the input.
const bp_device_api* make_device_api() {
  FuzzedDataProvider& p = *g.p;
  if (p.ConsumeIntegralInRange<int>(0, 15) == 0) return nullptr;
  const int slot = g_backends_made++ % kMaxBackends;
  bp_device_api& api = g_api[slot];
  api = bp_device_api{};
  api.struct_size = pick_struct_size(sizeof api);
  // Each required function NULL now and then.
  api.device_count = p.ConsumeIntegralInRange<int>(0, 31) ? dev_count : nullptr;
  api.device_properties = p.ConsumeIntegralInRange<int>(0, 31) ? dev_props : nullptr;
  api.alloc = p.ConsumeIntegralInRange<int>(0, 31) ? dev_alloc : nullptr;
  api.free = p.ConsumeIntegralInRange<int>(0, 31) ? dev_free : nullptr;
  api.copy = p.ConsumeIntegralInRange<int>(0, 31) ? dev_copy : nullptr;

  DeviceBehaviour& b = g_behaviour[slot];
  b = DeviceBehaviour{};
  b.count_status = pick_status();
  switch (p.ConsumeIntegralInRange<int>(0, 11)) {
    case 0:
      b.count = -p.ConsumeIntegralInRange<int32_t>(1, 3);
      break;
    case 1:
      b.count = std::numeric_limits<int32_t>::min();
      break;
    case 2:
      b.count = std::numeric_limits<int32_t>::max();
      break;
    case 3:
      b.count = p.ConsumeIntegral<int32_t>();
      break;
    case 4:
      b.count = 32768;
      break;
    default:
      b.count = p.ConsumeIntegralInRange<int32_t>(0, 3);
  }
  b.reason = pick_string("no device here", {"x"}, false);
  b.props_status = pick_status();
  b.props_fail_index = p.ConsumeBool() ? -1 : p.ConsumeIntegralInRange<int32_t>(0, 3);
  b.props_bytes = p.ConsumeBytes<uint8_t>(sizeof(bp_device_props));
  b.props_bytes.resize(sizeof(bp_device_props), 'p');  // short input: no NUL anywhere
  b.props_struct_size = pick_struct_size(sizeof(bp_device_props));
  b.alloc_status = p.ConsumeIntegralInRange<int>(0, 3) ? BP_OK : pick_status();
  b.alloc_null = p.ConsumeIntegralInRange<int>(0, 7) == 0;
  b.copy_status = p.ConsumeIntegralInRange<int>(0, 3) ? BP_OK : pick_status();
  return &api;
}

// register_backend with a fuzzed name, device API and out pointer.
void fuzz_register_backend(const bp_host_api* host, void* h) {
  FuzzedDataProvider& p = *g.p;
  const char* name = pick_string("fuzz_a", {"fuzz_b", "reference", "cpu", "Fuzz", "9x"}, true);
  const bp_device_api* api = make_device_api();
  void* ctx = api ? &g_behaviour[(g_backends_made - 1) % kMaxBackends] : nullptr;
  uint32_t id = 0;
  const bool null_out = p.ConsumeIntegralInRange<int>(0, 15) == 0;
  if (host->register_backend(h, name, api, ctx, null_out ? nullptr : &id) == BP_OK)
    g.last_backend_id = id;
}

// register_kernel with a fuzzed backend id, op name, dtype mask, function and context.
void fuzz_register_kernel(const bp_host_api* host, void* h) {
  FuzzedDataProvider& p = *g.p;
  uint32_t id = g.last_backend_id;
  switch (p.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:
      id = p.ConsumeIntegral<uint32_t>();
      break;
    case 1:
      id = bp::device_types::Reference;  // another plugin's backend
      break;
    case 2:
      id = p.ConsumeIntegralInRange<uint32_t>(0, 70);
      break;
  }
  const auto ops = bp::Catalog::get().ops();
  const std::string& real = ops[p.ConsumeIntegralInRange<size_t>(0, ops.size() - 1)].name;
  const char* op = pick_string(real.c_str(), {"add", "add.Tensor ", "add.", ".Tensor"}, false);
  uint32_t dtypes = BP_DTYPES_ALL;
  switch (p.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      dtypes = p.ConsumeIntegral<uint32_t>();
      break;
    case 1:
      dtypes = 0;
      break;
    case 2:
      dtypes = p.ConsumeIntegralInRange<uint32_t>(1, BP_DTYPES_ALL);
      break;
  }
  bp_kernel_fn fn = kernel_a;
  switch (p.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      fn = nullptr;
      break;
    case 1:
      fn = kernel_b;
      break;
  }
  void* kctx = p.ConsumeBool() ? nullptr : &g;
  host->register_kernel(h, id, op, dtypes, fn, kctx);
}

// One host API call chosen by the input.
void host_call(const bp_host_api* host) {
  FuzzedDataProvider& p = *g.p;
  // Now and then the plugin passes NULL instead of the host pointer it was given.
  void* h = p.ConsumeIntegralInRange<int>(0, 15) ? host->host : nullptr;
  switch (p.ConsumeIntegralInRange<int>(0, 4)) {
    case 0:
      fuzz_register_backend(host, h);
      break;
    case 1:
      fuzz_register_kernel(host, h);
      break;
    case 2:
      host->set_error(h, pick_status(), pick_string("a message", {}, false));
      break;
    case 3:
      // Levels below 2 are not printed, so fuzzing does not flood stderr; a NULL and an
      // unterminated message still reach the host at warning level now and then.
      host->log(h, p.ConsumeIntegralInRange<int>(0, 15) ? 0 : 2,
                pick_string("a log line", {}, false));
      break;
    case 4:
      break;
  }
}

bp_status fuzz_init(const bp_host_api* host, const char*) {
  g.host = host;
  FuzzedDataProvider& p = *g.p;
  const int calls = p.ConsumeIntegralInRange<int>(0, 8);
  for (int i = 0; i < calls; ++i) host_call(host);
  if (p.ConsumeIntegralInRange<int>(0, 31) == 0)
    throw std::runtime_error("init threw");  // across the C ABI: the host must survive it
  return p.ConsumeIntegralInRange<int>(0, 7) ? BP_OK : pick_status();
}

void fuzz_shutdown() {
  ++g.shutdowns;
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const bp::BackendInfo& b : bp::backends()) names.push_back(b.name);
  return names;
}

// A descriptor of the fuzz plugin, every field from the input.
bp_plugin_descriptor fuzzed_descriptor(FuzzedDataProvider& p) {
  bp_plugin_descriptor d{};
  d.struct_size = pick_struct_size(sizeof d);
  d.abi_major = p.ConsumeIntegralInRange<int>(0, 7) ? BP_ABI_MAJOR : p.ConsumeIntegral<uint32_t>();
  d.abi_minor = p.ConsumeIntegralInRange<int>(0, 7)
                    ? p.ConsumeIntegralInRange<uint32_t>(0, BP_ABI_MINOR)
                    : p.ConsumeIntegral<uint32_t>();
  d.name = pick_string("fuzz_plugin", {"reference", "fuzz_other"}, false);
  d.version = pick_string("1.0", {}, false);
  d.vendor = pick_string("fuzz", {}, false);
  d.init = p.ConsumeIntegralInRange<int>(0, 15) ? fuzz_init : nullptr;
  d.shutdown = p.ConsumeIntegralInRange<int>(0, 7) ? fuzz_shutdown : nullptr;
  return d;
}

// A registered fuzz plugin: what the host kept of its devices is sane, its devices can
// allocate (or refuse to), and registration after init is refused.
void check_registered(const bp::PluginLoadReport& report, FuzzedDataProvider& p) {
  // What the host kept from the device API: strings it must have terminated.
  for (const bp::DeviceInfo& info : bp::devices()) {
    FUZZ_CHECK(info.name.size() < sizeof(bp_device_props::name), "device name not terminated");
    FUZZ_CHECK(info.vendor.size() < sizeof(bp_device_props::vendor),
               "device vendor not terminated");
    FUZZ_CHECK(info.architecture.size() < sizeof(bp_device_props::architecture),
               "device architecture not terminated");
  }
  for (const std::string& backend : report.backends) {
    for (const bp::BackendInfo& b : bp::backends()) {
      if (b.name != backend) continue;
      FUZZ_CHECK(b.device_count >= 0, "negative device count kept");
      for (int i = 0; i < std::min(b.device_count, 2); ++i) {
        const bp::Device dev(b.type, static_cast<int16_t>(i));
        try {
          bp::Tensor t = bp::empty({static_cast<int64_t>(p.ConsumeIntegralInRange<int>(0, 64))},
                                   bp::ScalarType::Float32, dev);
          bp::Tensor host_copy = bp::to(t, bp::Device(bp::device_types::Reference, 0));
        } catch (const bp::Error&) {
        }
      }
    }
  }
  // Registration is for init only: the host must refuse it now.
  if (g.host) {
    uint32_t id = 0;
    FUZZ_CHECK(g.host->register_backend(g.host->host, "fuzz_late", &g_api[0], &g_behaviour[0],
                                        &id) != BP_OK,
               "register_backend succeeded after init");
    FUZZ_CHECK(g.host->register_kernel(g.host->host, g.last_backend_id, "add.Tensor", BP_DTYPES_ALL,
                                       kernel_a, nullptr) != BP_OK,
               "register_kernel succeeded after init");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::string> baseline = backend_names();
  FuzzedDataProvider p(data, size);
  g = State{};
  g.p = &p;
  g_backends_made = 0;

  const bp_plugin_descriptor d = fuzzed_descriptor(p);
  const bool null_descriptor = p.ConsumeIntegralInRange<int>(0, 31) == 0;
  const bp::PluginLoadReport report = bp::register_plugin(null_descriptor ? nullptr : &d, "fuzz");
  const bool registered =
      report.status == bp::LoadStatus::Loaded || report.status == bp::LoadStatus::NoDevices;
  if (registered) {
    check_registered(report, p);
    bp::unregister_plugin(report.plugin);
  }
  // The copies above leave blocks cached on the reference device; by design the runtime does
  // not free cached blocks at exit (docs/allocator.md), which LeakSanitizer would report
  // when the fuzzer exits. Each input leaves nothing cached.
  bp::empty_cache();
  FUZZ_CHECK(backend_names() == baseline,
             "backends left registered after the plugin went (status " +
                 std::string(bp::to_string(report.status)) + ": " + report.message + ")");
  FUZZ_CHECK(g.shutdowns <= 1, "shutdown called " + std::to_string(g.shutdowns) + " times");
  if (registered && d.shutdown)
    FUZZ_CHECK(g.shutdowns == 1, "shutdown not called after unregister_plugin");
  FUZZ_CHECK(g.allocations.empty(), "device memory not freed after unregister_plugin");
  return 0;
}
