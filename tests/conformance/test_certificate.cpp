// Certificates as a library (conformance/src/certificate.cpp): a sealed certificate checks
// clean; editing one case, one count, or the seal itself is found and named; a signature
// holds only for the content and the key it was made with; the canonical form is the one
// Python's json.dumps(sort_keys=True, separators=(",", ":")) gives, pinned on a small input.
#include <backplane/conformance/certificate.hpp>
#include <backplane/core/error.hpp>

#include <doctest/doctest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <string>

namespace {

namespace cf = bp::conformance;
namespace fs = std::filesystem;
using nlohmann::json;

cf::Report small_report() {
  cf::Report r;
  r.device = "cpu:0";
  r.device_name = "Test CPU";
  r.plugin = "cpu 0.1.0";
  r.suite = "quick";
  r.device_attributes = "isa=avx2";
  r.ops = {{"add.Tensor", true, "native"}, {"silu", false, "decomposed"}};
  auto add_case = [&](const char* id, const char* op, cf::CaseStatus s) {
    cf::CaseResult c;
    c.id = id;
    c.op = op;
    c.dtype = "f32";
    c.status = s;
    r.cases.push_back(c);
  };
  add_case("add.Tensor/f32/a", "add.Tensor", cf::CaseStatus::Passed);
  add_case("add.Tensor/f32/b", "add.Tensor", cf::CaseStatus::Failed);
  add_case("silu/f32/a", "silu", cf::CaseStatus::Passed);
  return r;
}

cf::CertificateContext small_context() {
  cf::CertificateContext c;
  c.plugin_name = "cpu";
  c.plugin_abi = "1.3";
  c.runtime_version = "0.1.0";
  c.runtime_abi = "1.3";
  c.suite_version = "0.1.0";
  c.isa = "avx2";
  c.created = "2026-12-06T00:00:00Z";
  return c;
}

// A fresh Ed25519 key pair as PEM files; returns {private, public}.
std::pair<fs::path, fs::path> make_key(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("bp_cert_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
  REQUIRE(key != nullptr);
  const fs::path priv = dir / (name + ".pem"), pub = dir / (name + ".pub.pem");
  std::FILE* f = std::fopen(priv.c_str(), "w");
  REQUIRE(PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr) == 1);
  std::fclose(f);
  f = std::fopen(pub.c_str(), "w");
  REQUIRE(PEM_write_PUBKEY(f, key) == 1);
  std::fclose(f);
  EVP_PKEY_free(key);
  return {priv, pub};
}

bool mentions(const cf::CertificateCheck& check, const std::string& text) {
  for (const std::string& p : check.problems)
    if (p.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("a sealed certificate checks clean and records what was tested") {
  const json c = cf::make_certificate(small_report(), small_context());
  const cf::CertificateCheck check = cf::check_certificate(c, std::nullopt);
  CHECK(check.problems.empty());
  CHECK(check.seal == "checksum");
  CHECK(c["results"]["summary"]["failed"] == 1);
  CHECK(c["results"]["ops"]["add.Tensor"] == json{{"failed", 1}, {"passed", 1}});
  CHECK(c["coverage"]["primitives"] == json{{"native", 1}, {"total", 1}});
  CHECK(c["device"]["isa"] == "avx2");
  CHECK(c["device"]["attributes"]["isa"] == "avx2");
  CHECK(c["integrity"]["note"].get<std::string>().find("not who made it") != std::string::npos);
  // Formatting does not matter: the file's text parses back to a clean certificate.
  CHECK(cf::check_certificate(json::parse(cf::certificate_text(c)), std::nullopt).problems.empty());
}

TEST_CASE("the canonical form is sorted compact JSON with non-ASCII escaped") {
  const json c = {{"b", 1}, {"a", {{"z", "é"}, {"y", json::array({1, "x"})}}}, {"integrity", 7}};
  CHECK(cf::canonical_form(c) == R"({"a":{"y":[1,"x"],"z":"\u00e9"},"b":1})");
  // `printf '{"a":1}' | sha256sum`
  CHECK(cf::sha256_hex(R"({"a":1})") ==
        "015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862");
}

TEST_CASE("editing one case's status is found by the digest and by the counts") {
  json c = cf::make_certificate(small_report(), small_context());
  c["results"]["cases"][1][1] = "passed";
  const cf::CertificateCheck check = cf::check_certificate(c, std::nullopt);
  CHECK(mentions(check, "does not match its SHA-256"));
  CHECK(mentions(check, "results.summary.failed is 1, but the certificate's cases hold 0"));
  CHECK(mentions(check, "results.ops.add.Tensor"));
  // An edit that keeps the counts consistent is still caught by the digest alone.
  c["results"]["summary"]["failed"] = 0;
  c["results"]["summary"]["passed"] = 3;
  c["results"]["ops"]["add.Tensor"] = {{"passed", 2}};
  const cf::CertificateCheck consistent = cf::check_certificate(c, std::nullopt);
  REQUIRE(consistent.problems.size() == 1);
  CHECK(mentions(consistent, "does not match its SHA-256"));
  // Resealing makes it intact again: a checksum is not a signature.
  cf::seal_certificate(c, std::nullopt);
  CHECK(cf::check_certificate(c, std::nullopt).problems.empty());
}

TEST_CASE("a signature holds for its content and key only") {
  const auto [priv, pub] = make_key("signer");
  const auto [other_priv, other_pub] = make_key("other");
  json c = cf::make_certificate(small_report(), small_context());
  cf::seal_certificate(c, priv);
  CHECK(c["signature"]["algorithm"] == "ed25519");
  CHECK(c["integrity"]["seal"] == "ed25519 signature");
  const cf::CertificateCheck ok = cf::check_certificate(c, pub);
  CHECK(ok.problems.empty());
  CHECK(ok.seal == "signed by key " + cf::signing_key_fingerprint(priv));
  CHECK(cf::check_certificate(c, priv).problems.empty());  // a private key names its public half

  SUBCASE("another key's holder did not sign it") {
    CHECK(mentions(cf::check_certificate(c, other_pub), "not by the key of"));
  }
  SUBCASE("an edit resealed with a checksum is no longer signed") {
    c["results"]["cases"][1][1] = "passed";
    c["results"]["summary"]["failed"] = 0;
    c["results"]["summary"]["passed"] = 3;
    c["results"]["ops"]["add.Tensor"] = {{"passed", 2}};
    json resealed = c;
    resealed.erase("integrity");
    cf::seal_certificate(resealed, std::nullopt);
    CHECK(cf::check_certificate(resealed, std::nullopt).problems.empty());
    CHECK(mentions(cf::check_certificate(resealed, pub), "not signed"));
    // Keeping the old signature does not help: it covers the old content.
    resealed["signature"] = c["signature"];
    CHECK(mentions(cf::check_certificate(resealed, pub), "signature by key"));
  }
  SUBCASE("a key that is not Ed25519 is refused, naming the file") {
    const fs::path bad = priv.parent_path() / "not_a_key.pem";
    std::FILE* f = std::fopen(bad.c_str(), "w");
    std::fputs("hello\n", f);
    std::fclose(f);
    CHECK_THROWS_WITH_AS(cf::seal_certificate(c, bad),
                         doctest::Contains("not_a_key.pem': no PEM private key"), bp::Error);
  }
}

TEST_CASE("a file that is not a certificate is an error, not a failed check") {
  CHECK_THROWS_WITH_AS(cf::check_certificate(json{{"device", "cpu:0"}}, std::nullopt),
                       doctest::Contains("not a Backplane certificate"), bp::Error);
  json c = cf::make_certificate(small_report(), small_context());
  c["results"]["cases"][0] = "add.Tensor/f32/a";
  CHECK_THROWS_WITH_AS(cf::check_certificate(c, std::nullopt),
                       doctest::Contains("not [id, status]"), bp::Error);
}
