// `backplane conformance --certificate` and `backplane verify`, run as processes on the
// template plugin (tests/plugins/template/) and its stride-bug variant: a certificate
// verifies; editing one result, swapping the plugin file, or rerunning on the buggy plugin
// each makes `verify` exit 1 naming the difference; and a forged certificate of the buggy
// plugin, resealed so that its checksum holds, is caught by --rerun.
#include "conformance_cli.hpp"

#include <backplane/conformance/certificate.hpp>

#include <fstream>

namespace {

using namespace bp::test;
using nlohmann::json;
namespace cf = bp::conformance;

const std::string kTemplate = kFixtureDir + "/libbp_fixture_template.so";
const std::string kStrides = kFixtureDir + "/libbp_fixture_template_strides.so";

ProgramResult certify(const std::string& plugin, const std::string& certificate,
                      std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--device",      "template_device:0", "--plugin", plugin,
                                   "--ops",         "^add\\.Tensor$",    "--jobs",   "2",
                                   "--certificate", certificate};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_conformance(args);
}

ProgramResult verify(std::vector<std::string> args) {
  args.insert(args.begin(), "verify");
  return run_program(kCli, args);
}

void write_json(const std::string& path, const json& j) {
  std::ofstream(path) << cf::certificate_text(j);
}

}  // namespace

TEST_CASE("verify: intact, edited, another plugin file, rerun on a buggy plugin") {
  const std::string cert = scratch_file("template_certificate.json");
  const ProgramResult made = certify(kTemplate, cert);
  REQUIRE_MESSAGE(made.exit_code == 0, made.out << made.err);
  CHECK(made.out.find("certificate: " + cert + " (checksum; sha256 ") != std::string::npos);
  const json c = read_json(cert);
  CHECK(c["plugin"]["sha256"] == cf::file_sha256(kTemplate));
  CHECK(c["plugin"]["abi"].get<std::string>().rfind("1.", 0) == 0);
  CHECK(c["device"]["id"] == "template_device:0");
  CHECK(c["suite"]["ops"] == "^add\\.Tensor$");

  ProgramResult v = verify({cert, "--plugin", kTemplate, "--rerun", "--sample", "1000"});
  CHECK_MESSAGE(v.exit_code == 0, v.out << v.err);
  CHECK(v.out.find("match") != std::string::npos);
  CHECK(v.out.find("seal: checksum (intact, but not a signature") != std::string::npos);

  SUBCASE("one result edited") {
    json edited = c;
    edited["results"]["cases"][0][1] = "failed";
    const std::string path = scratch_file("edited_certificate.json");
    write_json(path, edited);
    v = verify({path});
    CHECK(v.exit_code == 1);
    CHECK(v.out.find("does not match its SHA-256") != std::string::npos);
    CHECK(v.out.find("NOT verified") != std::string::npos);
  }
  SUBCASE("the plugin file swapped") {
    v = verify({cert, "--plugin", kStrides});
    CHECK(v.exit_code == 1);
    CHECK(v.out.find("the plugin file differs: " + kStrides) != std::string::npos);
  }
  SUBCASE("rerun on the buggy plugin") {
    v = verify({cert, "--plugin", kStrides, "--rerun", "--sample", "1000"});
    CHECK(v.exit_code == 1);
    CHECK(v.out.find(": certified passed, the rerun failed") != std::string::npos);
    CHECK(v.out.find("--case") != std::string::npos);  // each mismatch reruns alone
  }
}

TEST_CASE("verify --rerun catches a forged certificate whose checksum holds") {
  const std::string cert = scratch_file("strides_certificate.json");
  const ProgramResult made = certify(kStrides, cert);
  REQUIRE(made.exit_code == 1);  // the stride bug fails cases; the certificate says so
  json forged = read_json(cert);
  REQUIRE(forged["results"]["summary"]["failed"].get<int>() > 0);
  CHECK(verify({cert, "--plugin", kStrides}).exit_code == 0);  // an honest failing certificate

  // The forger marks every case passed, fixes the counts and recomputes the checksum.
  int64_t total = 0;
  for (json& k : forged["results"]["cases"]) {
    if (k[1] != "unsupported") k[1] = "passed";
    total += k[1] == "passed";
  }
  for (auto& [status, count] : forged["results"]["summary"].items())
    if (status != "total" && status != "unsupported") count = status == "passed" ? total : 0;
  json& add = forged["results"]["ops"]["add.Tensor"];
  for (const char* status : {"failed", "crashed", "timeout", "blocked"}) add.erase(status);
  add["passed"] = total;
  cf::seal_certificate(forged, std::nullopt);
  const std::string path = scratch_file("forged_certificate.json");
  write_json(path, forged);

  ProgramResult v = verify({path, "--plugin", kStrides});
  CHECK_MESSAGE(v.exit_code == 0, v.out);  // a checksum cannot tell
  v = verify({path, "--plugin", kStrides, "--rerun", "--sample", "1000"});
  CHECK(v.exit_code == 1);
  CHECK(v.out.find(": certified passed, the rerun failed") != std::string::npos);
}

TEST_CASE("a signed certificate, and a bad key refused before the run") {
  const std::string cert = scratch_file("unsigned.json");
  const std::string key = scratch_file("not_a_key.pem");
  std::ofstream(key) << "not a key\n";
  const ProgramResult bad = certify(kTemplate, cert, {"--sign-key", key});
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("not_a_key.pem': no PEM private key") != std::string::npos);
  CHECK(bad.out.find("passed") == std::string::npos);  // nothing ran

  const ProgramResult no_certificate =
      run_conformance({"--device", "template_device:0", "--plugin", kTemplate, "--sign-key", key});
  CHECK(no_certificate.exit_code == 2);
  CHECK(no_certificate.err.find("--sign-key: needs --certificate FILE") != std::string::npos);

  const ProgramResult sharded = certify(kTemplate, cert, {"--shard", "0/2"});
  CHECK(sharded.exit_code == 2);
  CHECK(sharded.err.find("a certificate covers a whole conformance run") != std::string::npos);
}
