// Tests for core/src/device.cpp: the device type registry and Device's text form.
#include "backplane/core/device.hpp"

#include "backplane/core/error.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

namespace bp {
namespace {

using test::catch_error;
using test::contains;

TEST_CASE("built-in device types have fixed slots") {
  CHECK(find_device_type("reference") == device_types::Reference);
  CHECK(find_device_type("cpu") == device_types::CPU);
  CHECK(find_device_type("opencl") == device_types::OpenCL);
  CHECK(find_device_type("level_zero") == device_types::LevelZero);
  CHECK(find_device_type("cuda") == device_types::CUDA);
  CHECK(find_device_type("rocm") == device_types::ROCm);
  CHECK(device_type_name(device_types::CUDA) == "cuda");
  CHECK(find_device_type("nope") == -1);
  const auto names = registered_device_type_names();
  REQUIRE(names.size() >= 6);
  CHECK(names[0] == "reference");
  CHECK(names[5] == "rocm");
}

TEST_CASE("an unused slot prints as unregistered") {
  CHECK(device_type_name(device_types::kMaxBackends - 1) ==
        fmt::format("<unregistered {}>", device_types::kMaxBackends - 1));
}

TEST_CASE("register_device_type gives new names dynamic slots and is idempotent") {
  const DeviceType a = register_device_type("test_dev_a");
  CHECK(a >= device_types::kFirstDynamic);
  CHECK(a < device_types::kMaxBackends);
  CHECK(register_device_type("test_dev_a") == a);
  CHECK(register_device_type("cuda") == device_types::CUDA);
  CHECK(device_type_name(a) == "test_dev_a");
  CHECK(find_device_type("test_dev_a") == a);
  const DeviceType b = register_device_type("test_dev_b2");
  CHECK(b == a + 1);
}

TEST_CASE("register_device_type rejects names that are not identifiers") {
  for (const char* bad : {"", "Cuda", "1gpu", "my-gpu", "gpu:0", "a b"}) {
    CAPTURE(bad);
    const Error e = catch_error([&] { register_device_type(bad); });
    CHECK(e.code() == ErrorCode::InvalidArgument);
    CHECK(contains(e.what(), "[a-z_][a-z0-9_]*"));
  }
  CHECK(register_device_type("_x9") >= device_types::kFirstDynamic);
}

TEST_CASE("concurrent registration of one name yields one slot") {
  std::vector<int> slots(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < slots.size(); ++i) {
    threads.emplace_back([&, i] { slots[i] = register_device_type("test_dev_race"); });
  }
  for (auto& t : threads) t.join();
  CHECK(std::all_of(slots.begin(), slots.end(), [&](int s) { return s == slots[0]; }));
}

TEST_CASE("register_device_type fails once all slots are taken") {
  // Filling the process-wide registry would break later tests, so do it in a child process.
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int status = 1;
    try {
      for (int i = 0; i < device_types::kMaxBackends; ++i) {
        register_device_type(fmt::format("test_fill_{}", i));
      }
    } catch (const Error& e) {
      const bool ok = e.code() == ErrorCode::Device &&
                      contains(e.what(), "all 48 device type slots are taken") &&
                      registered_device_type_names().size() == device_types::kMaxBackends;
      status = ok ? 0 : 2;
    }
    _exit(status);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("Device::parse reads type and index") {
  CHECK(Device::parse("cuda:1") == Device(device_types::CUDA, 1));
  CHECK(Device::parse("cpu") == Device(device_types::CPU, 0));
  CHECK(Device::parse("level_zero:3") == Device(device_types::LevelZero, 3));
  CHECK(Device::parse("rocm:32767").index == 32767);
  const DeviceType t = register_device_type("test_dev_parse");
  CHECK(Device::parse("test_dev_parse:2") == Device(t, 2));
}

TEST_CASE("Device::str is canonical and round-trips") {
  CHECK(Device(device_types::CUDA, 1).str() == "cuda:1");
  CHECK(Device().str() == "reference:0");
  CHECK(Device::parse("opencl").str() == "opencl:0");
  for (const char* text : {"cpu:0", "cuda:7", "rocm:12"}) {
    CHECK(Device::parse(text).str() == text);
  }
}

TEST_CASE("Device::parse rejects malformed text naming it") {
  for (const char* bad : {"cuda:", "cuda:x", "cuda:1x", "cuda: 1", "cuda:+1", "cuda:0:1"}) {
    CAPTURE(bad);
    const Error e = catch_error([&] { Device::parse(bad); });
    CHECK(e.code() == ErrorCode::Parse);
    CHECK(contains(e.what(), std::string("'") + bad + "'"));
  }
}

TEST_CASE("Device::parse rejects negative and too large indices") {
  Error e = catch_error([] { Device::parse("cuda:-1"); });
  CHECK(contains(e.what(), "negative"));
  e = catch_error([] { Device::parse("cuda:32768"); });
  CHECK(contains(e.what(), "out of range [0, 32767]"));
  e = catch_error([] { Device::parse("cuda:99999999999999999999999"); });
  CHECK(contains(e.what(), "out of range"));
}

TEST_CASE("Device::parse rejects unknown types listing the known ones") {
  const Error e = catch_error([] { Device::parse("foo:0"); });
  CHECK(e.code() == ErrorCode::Device);
  CHECK(contains(e.what(), "unknown device type 'foo'"));
  CHECK(contains(e.what(), "reference, cpu, opencl, level_zero, cuda, rocm"));
  CHECK_THROWS_AS(Device::parse(""), Error);
  CHECK_THROWS_AS(Device::parse("CUDA:0"), Error);
}

TEST_CASE("Device hashes distinguish type and index") {
  std::hash<Device> h;
  CHECK(h(Device(device_types::CUDA, 0)) != h(Device(device_types::CUDA, 1)));
  CHECK(h(Device(device_types::CUDA, 0)) != h(Device(device_types::ROCm, 0)));
}

}  // namespace
}  // namespace bp
