// The reproducers of `backplane conformance --emit-repro` (repro.hpp), as text: what they
// embed for a case. scripts/check-out-of-tree builds one against an install and runs it on
// the template with the add stride bug (it must fail) and on the unchanged template (pass).
#include <backplane/conformance/case_id.hpp>
#include <backplane/conformance/repro.hpp>

#include <backplane/core/error.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace bp::conformance;

namespace {
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE(
    "repro: a case's program names the device, plugins, cap, op and tolerance, and "
    "embeds each input with its view") {
  const ReproTarget target{"cpu:0", {"/opt/acme/libbackplane_plugin_cpu.so"}, "avx2"};
  const ReproFiles f = make_repro(CaseId::parse("add.Tensor/f32/transposed_17x9"), 7, target);
  CHECK(has(f.cmake_lists, "find_package(Backplane 0.1 REQUIRED)"));
  CHECK(has(f.cmake_lists, "target_link_libraries(repro PRIVATE Backplane::backplane)"));
  CHECK(has(f.source, "kPlugins[] = {\"/opt/acme/libbackplane_plugin_cpu.so\"}"));
  CHECK(has(f.source, "kDevice = \"cpu:0\""));
  CHECK(has(f.source, "kCase = \"add.Tensor/f32/transposed_17x9\""));
  CHECK(has(f.source, "kSeed = \"7\""));
  CHECK(has(f.source, "kCpuIsa = \"avx2\""));
  CHECK(has(f.source, "kOp = \"add.Tensor\""));
  CHECK(has(f.source, "kExpectError = \"\""));
  // self and other: [17, 9] transposed in memory, 153 f32 values = 612 bytes each.
  CHECK(has(f.source,
            "// self\n  args.emplace_back(make_tensor(device, \"f32\", {17, 9}, "
            "{1, 17}, 0,"));
  CHECK(has(f.source, "// other\n"));
  // One tolerance, f32's: 23 mantissa bits.
  CHECK(has(f.source, ", false, 23, 0x1p-126, false}};"));
  // Another seed, other bytes.
  CHECK(make_repro(CaseId::parse("add.Tensor/f32/transposed_17x9"), 8, target).source != f.source);
}

TEST_CASE("repro: an error input expects the reference's error text; a device check has none") {
  const ReproTarget target{"cpu:0", {}, ""};
  const ReproFiles f = make_repro(CaseId::parse("matmul/f32/error_scalar_0d"), 0, target);
  CHECK(has(f.source, "kExpectError = \"at least 1 dim\""));
  CHECK_THROWS_WITH_AS(make_repro(CaseId::parse("device_api/bytes/alignment"), 0, target),
                       doctest::Contains("is a device-API check, which has no op to call"),
                       bp::Error);
}
