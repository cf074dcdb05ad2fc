// The capability manifest audit of `backplane conformance` (conformance_command.cpp), run as
// a process: the template plugin's own manifest matches what it registers and passes; the
// stride-bug variant whose manifest claims too much (tests/plugins/template/false_claims.toml)
// fails the run, listing the claim that is not registered, the one that does not pass and
// the registrations without a claim; a plugin without a manifest is said to have none.
#include "conformance_cli.hpp"

namespace {

using namespace bp::test;

const std::string kFalseClaims =
    std::string(BP_BINARY_DIR) +
    "/tests/manifest-fixtures/libbackplane_plugin_template_false_claims.so";

ProgramResult conformance_on(const std::string& plugin, const std::string& json) {
  return run_conformance(
      {"--device", "template_device:0", "--plugin", plugin, "--jobs", "2", "--json", json});
}

}  // namespace

TEST_CASE("conformance audits a manifest that claims too much and too little") {
  const std::string json_path = scratch_file("false_claims.json");
  const ProgramResult r = conformance_on(kFalseClaims, json_path);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("capability manifest: 4 claims; 1 not registered, 1 not passing, 3 "
                   "registered without a claim") != std::string::npos);
  const nlohmann::json audit = read_json(json_path).at("manifest_audit");
  CHECK(audit.at("not_registered") == nlohmann::json::array({"mul.Tensor/f64"}));
  CHECK(audit.at("not_passing") == nlohmann::json::array({"add.Tensor/f32"}));
  CHECK(audit.at("not_claimed") ==
        nlohmann::json::array({"copy_/f32", "fill_.Scalar/f32", "sum.dim_IntList/f32"}));
}

TEST_CASE("conformance: a plugin without a manifest is said to have none, and passes") {
  const ProgramResult r =
      conformance_on(kFixtureDir + "/libbp_fixture_template.so", scratch_file("no_manifest.json"));
  CHECK_MESSAGE(r.exit_code == 0, r.out);
  CHECK(r.out.find("capability manifest: none (the plugin was built without "
                   "backplane_add_plugin's MANIFEST)") != std::string::npos);
}
