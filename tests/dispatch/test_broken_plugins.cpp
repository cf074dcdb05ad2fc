// Every broken plugin of tests/plugins/ through load_plugin and in one discovery run: each
// gets its documented status and exact message (docs/dispatch.md, "Loading plugins"), leaves
// nothing registered, and neither crashes the host nor stops the plugins after it.
#include "plugin_test_support.hpp"

#include <doctest/doctest.h>
#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace bp::test {
namespace {

// The messages below spell out the ABI version; they change when it does.
static_assert(BP_ABI_MAJOR == 1 && BP_ABI_MINOR == 3, "update the expected ABI versions");

struct Expected {
  std::string fixture;  // tests/plugins/ library
  LoadStatus status;
  std::string plugin;   // "" for the library's path
  std::string message;  // exact; for the dynamic loader's text, the part we write
  bool prefix_only = false;
};

const std::string kNoSlotSuffix =
    " (device_count, device_properties, alloc, free and copy are required)";

std::vector<Expected> broken_plugins() {
  return {
      {"abi_major", LoadStatus::Refused, "abi_major",
       "built against ABI 2.0, this runtime provides 1.3: the major version must match"},
      {"abi_minor", LoadStatus::Refused, "abi_minor",
       "built against ABI 1.4, this runtime provides 1.3: a plugin newer than the runtime is "
       "refused (update Backplane)"},
      {"no_entry", LoadStatus::Failed, "",
       "no entry symbol 'bp_plugin_query': not a Backplane plugin (is the symbol exported with "
       "BP_EXPORT and extern \"C\"?)"},
      {"small_descriptor", LoadStatus::Failed, "",
       "descriptor struct_size 16 is smaller than the ABI 1.0 descriptor (56 bytes)"},
      {"init_error", LoadStatus::Failed, "init_error",
       "init failed with status 4 (device error): init_error: the firmware did not answer"},
      {"init_catches", LoadStatus::Failed, "init_catches",
       "init failed with status 4 (device error): init_catches: the driver threw while opening "
       "the device"},
      {"init_throws", LoadStatus::Failed, "init_throws",
       "init failed with status 6 (internal error): init let a C++ exception escape across the "
       "C ABI: init_throws: escaped from init"},
      {"not_a_library.so", LoadStatus::Failed, "", "not a loadable shared library: ", true},
      {"truncated", LoadStatus::Failed, "",
       "not a loadable shared library: truncated ELF file: segment ", true},
      {"null_device_count", LoadStatus::Failed, "null_device_count",
       "init failed with status 1 (invalid argument): register_backend('null_device_count_dev'): "
       "the device API has no device_count" +
           kNoSlotSuffix},
      {"null_device_properties", LoadStatus::Failed, "null_device_properties",
       "init failed with status 1 (invalid argument): "
       "register_backend('null_device_properties_dev'): the device API has no "
       "device_properties" +
           kNoSlotSuffix},
      {"null_alloc", LoadStatus::Failed, "null_alloc",
       "init failed with status 1 (invalid argument): register_backend('null_alloc_dev'): the "
       "device API has no alloc" +
           kNoSlotSuffix},
      {"null_free", LoadStatus::Failed, "null_free",
       "init failed with status 1 (invalid argument): register_backend('null_free_dev'): the "
       "device API has no free" +
           kNoSlotSuffix},
      {"null_copy", LoadStatus::Failed, "null_copy",
       "init failed with status 1 (invalid argument): register_backend('null_copy_dev'): the "
       "device API has no copy" +
           kNoSlotSuffix},
      {"unknown_op", LoadStatus::Failed, "unknown_op",
       "init failed with status 7 (not found): register_kernel: unknown operator "
       "'frobnicate.Tensor'"},
  };
}

void check_report(const PluginLoadReport& r, const Expected& e, const std::string& path) {
  INFO("fixture ", e.fixture, ": ", r.message);
  CHECK(r.status == e.status);
  CHECK(r.plugin == (e.plugin.empty() ? path : e.plugin));
  CHECK(r.path == path);
  if (e.prefix_only) {
    CHECK(r.message.starts_with(e.message));
    CHECK(r.message.size() > e.message.size());  // followed by the dynamic loader's text
  } else {
    CHECK(r.message == e.message);
  }
  CHECK(r.backends.empty());
}

bool has_backend(const std::string& name) {
  for (const BackendInfo& b : backends())
    if (b.name == name) return true;
  return false;
}

}  // namespace

TEST_CASE("each broken plugin gets its documented status and message from load_plugin") {
  for (const Expected& e : broken_plugins()) {
    const fs::path path = fixture(e.fixture);
    const PluginLoadReport r = load_plugin(path, {.warn = false});
    check_report(r, e, path.string());
  }
  // Nothing of theirs stayed registered.
  for (const char* backend : {"init_error_dev", "null_device_count_dev", "null_alloc_dev",
                              "null_copy_dev", "unknown_op_dev"})
    CHECK_FALSE(has_backend(backend));
  for (const OpTableEntry& entry : op_table("add.Tensor")) CHECK(entry.backend != "unknown_op_dev");
}

TEST_CASE("the report carries what the descriptor says about the plugin") {
  const fs::path path = fixture("abi_minor");
  const PluginLoadReport r = load_plugin(path, {.warn = false});
  CHECK(r.version == "0.0.1");
  CHECK(r.vendor == "Backplane tests");
  CHECK(r.abi_major == 1);
  CHECK(r.abi_minor == BP_ABI_MINOR + 1);
  // A descriptor too small to hold its name: the version it states is still read, nothing
  // past struct_size is.
  const PluginLoadReport small = load_plugin(fixture("small_descriptor"), {.warn = false});
  CHECK(small.abi_major == 1);
  CHECK(small.abi_minor == BP_ABI_MINOR);
  CHECK(small.version.empty());
  CHECK(small.vendor.empty());
  // Nothing is known of a file that is not a plugin.
  const PluginLoadReport text = load_plugin(fixture("not_a_library.so"), {.warn = false});
  CHECK(text.abi_major == 0);
  CHECK(text.version.empty());
}

TEST_CASE("a text file and a truncated library fail with the reason") {
  const PluginLoadReport text = load_plugin(fixture("not_a_library.so"), {.warn = false});
  CHECK(text.message.find("invalid ELF header") != std::string::npos);  // dlopen's text
  // dlopen itself would map the missing segments and crash the host with SIGBUS.
  const PluginLoadReport cut = load_plugin(fixture("truncated"), {.warn = false});
  CHECK(cut.message.ends_with(" but the file has 4096 bytes"));
}

TEST_CASE("a plugin cut at any length fails without crashing the host") {
  ScratchDir d("truncated");
  std::ifstream in(fixture("testdev"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Where the file's last loadable segment ends: every shorter cut loses part of one.
  Elf64_Ehdr header;
  REQUIRE(bytes.size() > sizeof header);
  std::memcpy(&header, bytes.data(), sizeof header);
  REQUIRE(header.e_phoff + header.e_phnum * sizeof(Elf64_Phdr) <= bytes.size());
  size_t end = 0;
  for (size_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    std::memcpy(&segment, bytes.data() + header.e_phoff + i * sizeof segment, sizeof segment);
    if (segment.p_type == PT_LOAD) end = std::max(end, segment.p_offset + segment.p_filesz);
  }
  REQUIRE(end > 1000);
  for (size_t n : {size_t{0}, size_t{16}, size_t{63}, size_t{64}, size_t{200}, size_t{1000},
                   end / 4, end / 2, end * 3 / 4, end - 1}) {
    const fs::path cut = d.dir / fmt::format("cut_{}.so", n);
    std::ofstream(cut, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(n));
    const PluginLoadReport r = load_plugin(cut, {.warn = false});
    INFO(n, " bytes: ", r.message);
    CHECK(r.status == LoadStatus::Failed);
    CHECK(r.message.starts_with("not a loadable shared library: "));
  }
}

TEST_CASE("a second backend with a loaded backend's name is refused and rolled back") {
  REQUIRE(load_plugin(fixture("testdev"), {.warn = false}).status == LoadStatus::Loaded);
  const PluginLoadReport r = load_plugin(fixture("duplicate_backend"), {.warn = false});
  CHECK(r.status == LoadStatus::Refused);
  CHECK(r.plugin == "duplicate_backend");
  CHECK(r.message == "backend 'test_dev' is already registered by plugin 'testdev'");
  CHECK(r.backends.empty());
  // test_dev is still the testdev plugin's, and works.
  for (const BackendInfo& b : backends())
    if (b.name == "test_dev") CHECK(b.plugin == "testdev");
  const Tensor a = from_vector<float>({1, 2}, {2}, Device::parse("test_dev:0"));
  CHECK(to_vector<float>(add(a, a)) == std::vector<float>{2, 4});
  unregister_plugin("testdev");
  // With testdev gone the name is free: the same library now loads.
  const PluginLoadReport again = load_plugin(fixture("duplicate_backend"), {.warn = false});
  CHECK(again.status == LoadStatus::Loaded);
  CHECK(again.backends == std::vector<std::string>{"test_dev"});
  unregister_plugin("duplicate_backend");
}

TEST_CASE("a backend with no devices is no-devices with its reason, and says so on use") {
  const fs::path path = fixture("no_devices");
  const PluginLoadReport r = load_plugin(path, {.warn = false});
  CHECK(r.status == LoadStatus::NoDevices);
  CHECK(r.message == "no_devices: no accelerator is attached");
  CHECK(r.backends == std::vector<std::string>{"no_devices_dev"});
  CHECK(r.path == path.string());
  const std::string msg =
      error_of([] { (void)empty({2}, ScalarType::Float32, Device::parse("no_devices_dev:0")); },
               ErrorCode::Device);
  CHECK(msg ==
        "empty: device no_devices_dev:0 does not exist: backend 'no_devices_dev' has 0 device(s) "
        "(no_devices: no accelerator is attached)");
  unregister_plugin("no_devices");
}

TEST_CASE("with several backends and no device, each backend's reason is listed") {
  const PluginLoadReport r = load_plugin(fixture("device_count_fails"), {.warn = false});
  CHECK(r.status == LoadStatus::NoDevices);
  // A failing device_count is "no devices" with the plugin's message, not a broken plugin.
  CHECK(r.message ==
        "dcf_zero: device_count_fails: nothing on the bus; dcf_error: device_count_fails: the "
        "driver is missing");
  CHECK(r.backends == std::vector<std::string>{"dcf_zero", "dcf_error"});
  unregister_plugin("device_count_fails");
}

TEST_CASE("a kernel's error reaches the caller with the op, the device and the message") {
  const PluginLoadReport r = load_plugin(fixture("kernel_error"), {.warn = false});
  REQUIRE_MESSAGE(r.status == LoadStatus::Loaded, r.message);
  CHECK(r.backends == std::vector<std::string>{"kernel_error_dev"});
  const Device device = Device::parse("kernel_error_dev:0");
  const Tensor a = from_vector<float>({1, 2}, {2}, device);
  CHECK(error_of([&] { (void)add(a, a); }, ErrorCode::Device) ==
        "add.Tensor on kernel_error_dev:0: kernel_error: the device refused to add");
  // Without a message from the plugin the status is named.
  CHECK(error_of([&] { (void)mul(a, a); }, ErrorCode::NotImplemented) ==
        "mul.Tensor on kernel_error_dev:0: returned status 2 (unsupported)");
  // The failed calls left the runtime usable.
  CHECK(to_vector<float>(a) == std::vector<float>{1, 2});
  unregister_plugin("kernel_error");
}

TEST_CASE("one discovery run reports every candidate in order and loads the good ones") {
  ScratchDir d("broken_discovery");
  // Name order is load order: testdev first so that duplicate_backend meets it.
  std::vector<fs::path> files;
  files.push_back(d.add_plugin("testdev", "00_testdev"));
  const std::vector<Expected> broken = broken_plugins();
  for (size_t i = 0; i < broken.size(); ++i)
    files.push_back(d.add_plugin(broken[i].fixture, fmt::format("{:02}_{}", i + 1, "broken")));
  files.push_back(d.add_plugin("duplicate_backend", "50_duplicate_backend"));
  files.push_back(d.add_plugin("no_devices", "51_no_devices"));
  files.push_back(d.add_plugin("kernel_error", "52_kernel_error"));
  files.push_back(d.add_plugin("testdev", "53_testdev_again"));  // another file, same plugin

  DiscoveryOptions options;
  options.plugins = {d.dir / "libbackplane_plugin_missing.so"};
  options.search_paths = {d.dir};
  options.use_environment = false;
  options.use_install_dir = false;
  options.warn = false;
  const size_t before = plugin_reports().size();
  const std::vector<PluginLoadReport> reports = discover_plugins(options);
  REQUIRE(reports.size() == files.size() + 1);

  CHECK(reports[0].status == LoadStatus::Failed);
  CHECK(reports[0].message == "no such file");
  CHECK(reports[0].path == (d.dir / "libbackplane_plugin_missing.so").string());
  CHECK(reports[1].status == LoadStatus::Loaded);
  CHECK(reports[1].plugin == "testdev");
  CHECK(reports[1].backends == std::vector<std::string>{"test_dev"});
  for (size_t i = 0; i < broken.size(); ++i) check_report(reports[i + 2], broken[i], files[i + 1]);
  const size_t tail = broken.size() + 2;
  CHECK(reports[tail].status == LoadStatus::Refused);
  CHECK(reports[tail].message == "backend 'test_dev' is already registered by plugin 'testdev'");
  CHECK(reports[tail + 1].status == LoadStatus::NoDevices);
  CHECK(reports[tail + 1].message == "no_devices: no accelerator is attached");
  CHECK(reports[tail + 2].status == LoadStatus::Loaded);
  CHECK(reports[tail + 2].plugin == "kernel_error");
  CHECK(reports[tail + 3].status == LoadStatus::Refused);
  CHECK(reports[tail + 3].message ==
        fmt::format("a plugin named 'testdev' is already loaded (from {})", files[0].string()));

  // plugin_reports() recorded the same candidates, in the same order.
  const std::vector<PluginLoadReport> all = plugin_reports();
  REQUIRE(all.size() == before + reports.size());
  for (size_t i = 0; i < reports.size(); ++i) {
    CHECK(all[before + i].path == reports[i].path);
    CHECK(all[before + i].status == reports[i].status);
    CHECK(all[before + i].message == reports[i].message);
  }

  // The host is fine and the good plugins work.
  const Tensor a = from_vector<float>({1, 2}, {2}, Device::parse("test_dev:0"));
  CHECK(to_vector<float>(add(a, a)) == std::vector<float>{2, 4});
  const Tensor r = from_vector<float>({3}, {1}, Device{device_types::Reference, 0});
  CHECK(to_vector<float>(add(r, r)) == std::vector<float>{6});
  for (const char* name : {"testdev", "no_devices", "kernel_error"}) unregister_plugin(name);
}

}  // namespace bp::test
