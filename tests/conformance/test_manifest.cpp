// Capability manifests (conformance/src/manifest_*.cpp): the TOML format and its errors
// with "file:line: ", the ELF note of a real built plugin (and of files without one), and
// the audit of claims against registrations and a conformance run.
#include <backplane/plugin.h>
#include <backplane/conformance/manifest.hpp>
#include <backplane/core/dtype.hpp>
#include <backplane/core/error.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace cf = bp::conformance;

namespace {

constexpr const char* kManifest = R"(# a vendor's manifest
[plugin]
name = "acme"
backends = ["acme_npu"]

[claims]
"add.Tensor" = ["f32", "bf16"]
relu = ["f32"]
)";

// The message of the bp::Error that parsing `text` (as "manifest.toml") throws.
std::string parse_error(const std::string& text) {
  try {
    cf::parse_manifest(text, "manifest.toml");
  } catch (const bp::Error& e) {
    CHECK(e.code() == bp::ErrorCode::Parse);
    return e.what();
  }
  FAIL("no bp::Error thrown for:\n" << text);
  return {};
}

std::string read(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

uint32_t bit(bp::ScalarType t) {
  return 1u << static_cast<unsigned>(t);
}

std::string error_of(const std::filesystem::path& file) {
  try {
    cf::read_plugin_manifest(file);
  } catch (const bp::Error& e) {
    return e.what();
  }
  FAIL("no bp::Error thrown for " << file.string());
  return {};
}

}  // namespace

TEST_CASE("manifest: parsing and writing back") {
  const cf::Manifest m = cf::parse_manifest(kManifest, "manifest.toml");
  CHECK(m.name == "acme");
  CHECK(m.backends == std::vector<std::string>{"acme_npu"});
  CHECK(m.claims.size() == 2);
  CHECK(m.claims.at("add.Tensor") ==
        (bit(bp::ScalarType::Float32) | bit(bp::ScalarType::BFloat16)));
  CHECK(m.claim_count() == 3);
  CHECK_FALSE(m.abi_major.has_value());
  // Written back: one line per op, dtypes in code order, and it reads the same.
  const std::string toml = cf::to_toml(m, "first\nsecond");
  CHECK(toml.find("# first\n# second\n") == 0);
  CHECK(toml.find("\"add.Tensor\" = [\"bf16\", \"f32\"]\nrelu = [\"f32\"]\n") != std::string::npos);
  CHECK(cf::parse_manifest(toml, "again.toml").claims == m.claims);
  const nlohmann::json j = cf::to_json(m);
  CHECK(j["claims"]["add.Tensor"] == nlohmann::json{"bf16", "f32"});
  CHECK(j["claims_count"] == 3);
  CHECK(j["abi"].is_null());
}

TEST_CASE("manifest: every error names the file and line") {
  const std::string head = "[plugin]\nname = \"acme\"\nbackends = [\"acme\"]\n[claims]\n";
  CHECK(parse_error(head + "relu = [\"f33\"]\n")
            .find("manifest.toml:5: [claims] relu: unknown "
                  "dtype 'f33'") == 0);
  CHECK(parse_error(head + "relu = [\"float32\"]\n").find("manifest.toml:5: ") == 0);
  CHECK(parse_error(head + "relu = [\"f32\", \"f32\"]\n")
            .find("manifest.toml:5: [claims] relu: 'f32' appears twice") == 0);
  CHECK(parse_error(head + "\"no_such_op.Tensor\" = [\"f32\"]\n")
            .find("manifest.toml:5: [claims]: 'no_such_op.Tensor' is not an op") == 0);
  CHECK(parse_error(head + "relu = \"f32\"\n")
            .find("manifest.toml:5: [claims] relu must be a non-empty array") == 0);
  CHECK(parse_error(head + "relu = [\"f32\"\n").find("manifest.toml:5: TOML syntax error") == 0);
  CHECK(parse_error("[plugin]\nname = \"acme\"\nbackend = [\"acme\"]\n")
            .find("manifest.toml:3: [plugin]: unknown key 'backend'") == 0);
  CHECK(parse_error("[plugin]\nname = \"acme\"\n").find("[plugin] has no 'backends'") !=
        std::string::npos);
  CHECK(parse_error("[plugin]\nname = \"acme\"\nbackends = []\n")
            .find("manifest.toml:3: [plugin] backends must be a non-empty array") == 0);
  CHECK(parse_error("[plugins]\n").find("manifest.toml:1: unknown key 'plugins'") == 0);
  CHECK(parse_error("[claims]\nrelu = [\"f32\"]\n").find("no [plugin] table") != std::string::npos);
}

TEST_CASE("manifest: the build's check knows the dtype names the reader does") {
  // backplane_add_plugin checks manifests at configure time with its own list of names.
  const std::string cmake =
      read(std::filesystem::path(BP_SOURCE_DIR) / "cmake" / "BackplanePluginSDK.cmake");
  std::smatch match;
  REQUIRE(std::regex_search(cmake, match, std::regex(R"(set\(dtypes ([a-z0-9 ]+)\))")));
  std::string names;
  for (int code = 0; code < bp::kNumScalarTypes; ++code)
    names += (code ? " " : "") + std::string(bp::dtype_name(static_cast<bp::ScalarType>(code)));
  CHECK(match[1].str() == names);
}

TEST_CASE("manifest: the ELF note of a built plugin") {
  const std::filesystem::path plugin =
      std::filesystem::path(BP_PLUGIN_DIR) / "libbackplane_plugin_cpu.so";
  const std::optional<cf::ManifestNote> note = cf::read_manifest_note(plugin);
  REQUIRE(note.has_value());
  // The manifest's text as written, and the ABI of the plugin.h it was compiled against.
  CHECK(note->text == read(std::filesystem::path(BP_SOURCE_DIR) / "plugins/cpu/manifest.toml"));
  CHECK(note->abi_major == BP_ABI_MAJOR);
  CHECK(note->abi_minor == BP_ABI_MINOR);
  const cf::Manifest m = cf::read_plugin_manifest(plugin);
  CHECK(m.name == "cpu");
  CHECK(m.backends == std::vector<std::string>{"cpu"});
  CHECK(m.claims.count("add.Tensor") == 1);
  CHECK(m.source == plugin.string() + "(.note.backplane.manifest)");
}

TEST_CASE("manifest: files without a note, or not ELF") {
  const std::filesystem::path dir(BP_FIXTURE_DIR);
  CHECK_FALSE(cf::read_manifest_note(dir / "libbp_fixture_testdev.so").has_value());
  CHECK(error_of(dir / "libbp_fixture_testdev.so")
            .find("no capability manifest (built without backplane_add_plugin's MANIFEST)") !=
        std::string::npos);
  CHECK(error_of(dir / "not_a_library.so").find("is not an ELF file") != std::string::npos);
  CHECK(error_of(dir / "libbp_fixture_truncated.so").find("is truncated") != std::string::npos);
  CHECK(error_of(dir / "no_such_file.so").find("cannot be read") != std::string::npos);
  // A 32-bit ELF header: named as such, not misread.
  const std::filesystem::path elf32 =
      std::filesystem::temp_directory_path() / "bp_test_manifest_elf32.so";
  std::ofstream(elf32, std::ios::binary) << std::string(
                                                "\x7f"
                                                "ELF\x01\x01\x01",
                                                7)
                                         << std::string(57, '\0');
  CHECK(error_of(elf32).find("is not a 64-bit little-endian ELF file") != std::string::npos);
  std::filesystem::remove(elf32);
}

namespace {

cf::CaseResult result(const std::string& op, const std::string& dtype, cf::CaseStatus status) {
  cf::CaseResult c;
  c.op = op;
  c.dtype = dtype;
  c.id = op + "/" + dtype + "/0";
  c.status = status;
  return c;
}

}  // namespace

TEST_CASE("manifest audit: each list, and a manifest that matches") {
  const cf::Manifest m = cf::parse_manifest(R"([plugin]
name = "acme"
backends = ["acme"]
[claims]
"add.Tensor" = ["f32", "bf16"]
"mul.Tensor" = ["f32"]
"sum.dim_IntList" = ["f32"]
copy_ = ["f32"]
relu = ["f32"]
)",
                                            "m.toml");
  const uint32_t f32 = bit(bp::ScalarType::Float32);
  const cf::OpDtypes registered = {{"add.Tensor", f32 | bit(bp::ScalarType::Float16)},
                                   {"mul.Tensor", f32},
                                   {"relu", f32},
                                   {"sum.dim_IntList", f32}};
  using S = cf::CaseStatus;
  cf::Report report;
  report.cases = {
      result("add.Tensor", "f32", S::Passed), result("add.Tensor", "f32", S::Passed),
      result("add.Tensor", "f16", S::Passed), result("relu", "f32", S::Passed),
      result("relu", "f32", S::Failed),       result("mul.Tensor", "f32", S::Unsupported)};
  const cf::ManifestAudit audit = cf::audit_manifest(m, registered, report);
  CHECK(audit.claims == 6);
  CHECK(audit.not_registered == std::vector<std::string>{"add.Tensor/bf16", "copy_/f32"});
  CHECK(audit.not_passing == std::vector<std::string>{"mul.Tensor/f32", "relu/f32"});
  CHECK(audit.not_claimed == std::vector<std::string>{"add.Tensor/f16"});
  CHECK(audit.not_tested == std::vector<std::string>{"sum.dim_IntList/f32"});
  CHECK_FALSE(audit.ok());
  const std::string text = cf::to_text(audit, 1);
  CHECK(text.find("6 claims; 2 not registered, 2 not passing, 1 registered without a claim, "
                  "1 not tested") != std::string::npos);
  CHECK(text.find("claimed, not registered: add.Tensor/bf16 (and 1 more)") != std::string::npos);
  CHECK(cf::to_json(audit)["not_claimed"] == nlohmann::json{"add.Tensor/f16"});

  // Claims equal to the registrations, every one passing: nothing to list.
  cf::Manifest matching = m;
  matching.claims = registered;
  report.cases.push_back(result("sum.dim_IntList", "f32", S::Passed));
  report.cases.push_back(result("mul.Tensor", "f32", S::Passed));
  report.cases.erase(report.cases.begin() + 4);  // relu's failure
  const cf::ManifestAudit clean = cf::audit_manifest(matching, registered, report);
  CHECK(clean.ok());
  CHECK(clean.not_tested.empty());
  CHECK(clean.claims == 5);
  CHECK(cf::to_json(clean)["ok"] == true);
}

TEST_CASE("manifest audit: the runtime's op table") {
  // The reference backend is built in: its kernels are in the op table without loading.
  const cf::OpDtypes reference = cf::registered_kernels("reference");
  REQUIRE(reference.count("add.Tensor") == 1);
  CHECK((reference.at("add.Tensor") & bit(bp::ScalarType::Float32)) != 0);
  CHECK(cf::registered_kernels("no_such_backend").empty());
}
