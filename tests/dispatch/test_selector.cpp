// The device selector: every form of the grammar, every parse error with its column, which
// backends a selector excludes (their plugins are never opened), the devices it selects
// from a made-up list of backends in priority order, and the check of backend names.
#include "plugin_test_support.hpp"

#include <backplane/backplane.hpp>
#include <backplane/dispatch/selector.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace bp::test {
namespace {

using Item = DeviceSelector::Item;

std::string parse_error(std::string_view text) {
  return error_of([&] { DeviceSelector::parse(text); }, ErrorCode::Parse);
}

// Backends as bp::backends() would list them, in registration order. The types are the
// dispatch slots; device counts and the no-device reason are made up.
std::vector<BackendInfo> fake_backends() {
  auto b = [](std::string name, DeviceType type, int count, std::string reason = "") {
    BackendInfo info;
    info.name = std::move(name);
    info.type = type;
    info.device_count = count;
    info.no_device_reason = std::move(reason);
    return info;
  };
  return {b("reference", 0, 1),
          b("cpu", 1, 1),
          b("cuda", 4, 2),
          b("acme_npu", 6, 1),
          b("opencl", 2, 0, "no OpenCL platform"),
          b("zeta", 7, 1),
          b("rocm", 5, 1)};
}

const Device kRef(0, 0), kCpu(1, 0), kCuda0(4, 0), kCuda1(4, 1), kRocm(5, 0), kAcme(6, 0),
    kZeta(7, 0);

}  // namespace

TEST_CASE("a selector names one device, every device of a backend, or a priority list") {
  const DeviceSelector one = DeviceSelector::parse("cuda:0");
  CHECK(one.items() == std::vector<Item>{{"cuda", 0}});
  CHECK(one.excluded().empty());
  CHECK(one.str() == "cuda:0");

  // "opencl" and "opencl:*" are the same selector.
  CHECK(DeviceSelector::parse("opencl:*").items() == std::vector<Item>{{"opencl", std::nullopt}});
  CHECK(DeviceSelector::parse("opencl") == DeviceSelector::parse("opencl:*"));
  CHECK(DeviceSelector::parse("opencl").str() == "opencl:*");

  const DeviceSelector list = DeviceSelector::parse(" cuda , rocm,level_zero ,\topencl:* , cpu ");
  CHECK(list.items() == std::vector<Item>{{"cuda", std::nullopt},
                                          {"rocm", std::nullopt},
                                          {"level_zero", std::nullopt},
                                          {"opencl", std::nullopt},
                                          {"cpu", std::nullopt}});
  CHECK(list.str() == "cuda:*,rocm:*,level_zero:*,opencl:*,cpu:*");

  // Whitespace around ':' and the largest index; out-of-tree names are fine when parsing.
  CHECK(DeviceSelector::parse("cuda : 32767,acme_npu:1").items() ==
        std::vector<Item>{{"cuda", 32767}, {"acme_npu", 1}});
  CHECK(DeviceSelector::parse("_x9:3").items() == std::vector<Item>{{"_x9", 3}});
}

TEST_CASE("negations exclude backends, alone or next to a list") {
  const DeviceSelector neg = DeviceSelector::parse("!level_zero");
  CHECK(neg.items().empty());
  CHECK(neg.excluded() == std::vector<std::string>{"level_zero"});
  CHECK(neg.str() == "!level_zero");

  const DeviceSelector mixed = DeviceSelector::parse("cuda, opencl, ! level_zero");
  CHECK(mixed.items() == std::vector<Item>{{"cuda", std::nullopt}, {"opencl", std::nullopt}});
  CHECK(mixed.excluded() == std::vector<std::string>{"level_zero"});
  CHECK(mixed.str() == "cuda:*,opencl:*,!level_zero");

  CHECK(DeviceSelector::parse("!cuda,!rocm").excluded() ==
        std::vector<std::string>{"cuda", "rocm"});
}

TEST_CASE("str() is canonical and parses back to the same selector") {
  for (const char* text : {"cuda:0", "opencl", "cuda,rocm:1,!cpu", "!a,!b", " x : * "}) {
    const DeviceSelector s = DeviceSelector::parse(text);
    CHECK(DeviceSelector::parse(s.str()) == s);
  }
  CHECK(DeviceSelector().str().empty());
  CHECK(DeviceSelector().is_default());
  CHECK_FALSE(DeviceSelector::parse("!cpu").is_default());
}

TEST_CASE("parse errors name the text, the column and what was expected") {
  CHECK(parse_error("") ==
        "device selector '': column 1: expected a backend name or '!' ([a-z_][a-z0-9_]*), "
        "found the end");
  CHECK(parse_error("CUDA") ==
        "device selector 'CUDA': column 1: expected a backend name or '!' ([a-z_][a-z0-9_]*), "
        "found 'C'");
  CHECK(parse_error("cuda:x") ==
        "device selector 'cuda:x': column 6: expected a device index or '*' after ':', found 'x'");
  CHECK(parse_error("cuda:") ==
        "device selector 'cuda:': column 6: expected a device index or '*' after ':', found the "
        "end");
  CHECK(parse_error("cuda:-1") ==
        "device selector 'cuda:-1': column 6: expected a device index or '*' after ':', found "
        "'-'");
  CHECK(parse_error("cuda,") ==
        "device selector 'cuda,': column 6: expected a backend name or '!' ([a-z_][a-z0-9_]*), "
        "found the end");
  CHECK(parse_error("cuda,,cpu") ==
        "device selector 'cuda,,cpu': column 6: expected a backend name or '!' "
        "([a-z_][a-z0-9_]*), found ','");
  CHECK(parse_error("cuda:0:1") ==
        "device selector 'cuda:0:1': column 7: expected ',' or the end after an item, found ':'");
  CHECK(parse_error("cuda opencl") ==
        "device selector 'cuda opencl': column 6: expected ',' or the end after an item, found "
        "'o'");
  CHECK(parse_error("cuda;cpu") ==
        "device selector 'cuda;cpu': column 5: expected ',' or the end after an item, found ';'");
  CHECK(parse_error("!") ==
        "device selector '!': column 2: expected a backend name after '!' ([a-z_][a-z0-9_]*), "
        "found the end");
  CHECK(parse_error("cpu, !cuda:0") ==
        "device selector 'cpu, !cuda:0': column 11: a negation names a whole backend: expected "
        "',' or the end after '!cuda', found ':'");
  CHECK(parse_error("cuda:32768") ==
        "device selector 'cuda:32768': column 6: device index 32768 is out of range [0, 32767]");
  CHECK(parse_error("cuda:99999999999999999999") ==
        "device selector 'cuda:99999999999999999999': column 6: device index "
        "99999999999999999999 is out of range [0, 32767]");
  CHECK(parse_error("cuda:0, cpu, !cuda") ==
        "device selector 'cuda:0, cpu, !cuda': column 14: backend 'cuda' is both listed and "
        "excluded");
}

TEST_CASE("a backend is excluded when negated or when a list leaves it out") {
  const DeviceSelector all;
  CHECK_FALSE(all.excludes_backend("cuda"));
  CHECK_FALSE(all.excludes_backend("acme_npu"));

  const DeviceSelector neg = DeviceSelector::parse("!level_zero,!opencl");
  CHECK(neg.excludes_backend("level_zero"));
  CHECK(neg.excludes_backend("opencl"));
  CHECK_FALSE(neg.excludes_backend("cuda"));
  CHECK_FALSE(neg.excludes_backend("acme_npu"));

  const DeviceSelector list = DeviceSelector::parse("cuda:1,cpu");
  CHECK_FALSE(list.excludes_backend("cuda"));  // one of its devices is listed
  CHECK_FALSE(list.excludes_backend("cpu"));
  CHECK(list.excludes_backend("opencl"));
  CHECK(list.excludes_backend("reference"));
  CHECK(list.excludes_backend("acme_npu"));
}

TEST_CASE("the default priority: accelerators, cpu, out-of-tree in order, reference last") {
  const auto p = DeviceSelector::default_priority();
  CHECK(std::vector<std::string_view>(p.begin(), p.end()) ==
        std::vector<std::string_view>{"cuda", "rocm", "level_zero", "opencl", "cpu"});
  const auto available = fake_backends();
  CHECK(DeviceSelector().select(available) ==
        std::vector<Device>{kCuda0, kCuda1, kRocm, kCpu, kAcme, kZeta, kRef});
  CHECK(DeviceSelector().first_available(available) == kCuda0);
  CHECK(DeviceSelector::parse("!cuda,!reference").select(available) ==
        std::vector<Device>{kRocm, kCpu, kAcme, kZeta});
}

TEST_CASE("a list selects in its own order, each device once, only what exists") {
  const auto available = fake_backends();
  CHECK(DeviceSelector::parse("cpu,cuda:1").select(available) == std::vector<Device>{kCpu, kCuda1});
  CHECK(DeviceSelector::parse("cuda:1,cuda,zeta").select(available) ==
        std::vector<Device>{kCuda1, kCuda0, kZeta});
  CHECK(DeviceSelector::parse("zeta,acme_npu").select(available) ==
        std::vector<Device>{kZeta, kAcme});
  // A missing index, a backend without devices, an unknown backend: skipped.
  CHECK(DeviceSelector::parse("cuda:2,opencl,nowhere,rocm").select(available) ==
        std::vector<Device>{kRocm});
  CHECK(DeviceSelector::parse("reference").first_available(available) == kRef);
  CHECK(DeviceSelector::parse("cuda:1,cpu").first_available(available) == kCuda1);
}

TEST_CASE("when nothing matches, the error names the selector and what is available") {
  const auto available = fake_backends();
  CHECK(error_of([&] { DeviceSelector::parse("cuda:2, opencl").first_available(available); },
                 ErrorCode::Device) ==
        "no device matches device selector 'cuda:2,opencl:*' (available: reference (1 device), "
        "cpu (1 device), cuda (2 devices), acme_npu (1 device), opencl (0 devices: no OpenCL "
        "platform), zeta (1 device), rocm (1 device))");
  CHECK(error_of([&] { DeviceSelector().first_available({}); }, ErrorCode::Device) ==
        "no device is available (no backend is loaded)");
}

TEST_CASE("validate() reports backend names nobody registered, with close matches") {
  const std::vector<std::string> known{"reference", "cpu", "cuda", "opencl"};
  CHECK(DeviceSelector::parse("cuda:0,!opencl").unknown_backends(known).empty());
  CHECK_NOTHROW(DeviceSelector::parse("cuda:0,!opencl").validate(known));
  CHECK(DeviceSelector::parse("cdua:0,cpu,!foo,cdua:1").unknown_backends(known) ==
        std::vector<std::string>{"cdua", "foo"});
  CHECK(error_of([&] { DeviceSelector::parse("cdua:0").validate(known); },
                 ErrorCode::InvalidArgument) ==
        "device selector 'cdua:0': unknown backend 'cdua' (known: cpu, cuda, opencl, "
        "reference); did you mean 'cuda'?");
  CHECK(error_of([&] { DeviceSelector::parse("!opencll").validate(known); },
                 ErrorCode::InvalidArgument) ==
        "device selector '!opencll': unknown backend 'opencll' (known: cpu, cuda, opencl, "
        "reference); did you mean 'opencl'?");
  CHECK(error_of([&] { DeviceSelector::parse("xyzzy_npu").validate(known); },
                 ErrorCode::InvalidArgument) ==
        "device selector 'xyzzy_npu:*': unknown backend 'xyzzy_npu' (known: cpu, cuda, opencl, "
        "reference)");
  // Only the closest names, alphabetically when several are as close.
  CHECK(unknown_backend_message("x", "cpa", std::vector<std::string>{"cuda", "cpu"}) ==
        "x: unknown backend 'cpa' (known: cpu, cuda); did you mean 'cpu'?");
  CHECK(
      unknown_backend_message("x", "acme_xpu", std::vector<std::string>{"acme_npu", "acme_gpu"}) ==
      "x: unknown backend 'acme_xpu' (known: acme_gpu, acme_npu); did you mean 'acme_gpu' or "
      "'acme_npu'?");
}

}  // namespace bp::test
