// Certificates: how one is made from a report, sealed and checked (certificate.hpp).
#include "backplane/conformance/certificate.hpp"

#include "backplane/conformance/case_id.hpp"
#include "certificate_crypto.hpp"

#include <backplane/core/error.hpp>
#include <backplane/dispatch/runtime.hpp>

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace bp::conformance {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kChecksumNote =
    "a checksum: it shows this file is intact, not who made it (anyone can recompute it); "
    "sign with --sign-key for that";

// Per-op counts of each status, the statuses with no case left out.
json per_op_results(const std::vector<std::pair<std::string, CaseStatus>>& cases) {
  std::map<std::string, std::map<std::string, int64_t>> counts;
  for (const auto& [op, status] : cases) ++counts[op][std::string(to_string(status))];
  json out = json::object();
  for (const auto& [op, by_status] : counts) out[op] = by_status;
  return out;
}

json summary_of(const std::vector<std::pair<std::string, CaseStatus>>& cases) {
  std::map<std::string, int64_t> counts;
  for (size_t s = 0; s < kCaseStatusCount; ++s)
    counts[std::string(to_string(static_cast<CaseStatus>(s)))] = 0;
  for (const auto& entry : cases) ++counts[std::string(to_string(entry.second))];
  counts["total"] = static_cast<int64_t>(cases.size());
  return counts;
}

json plugin_part(const CertificateContext& c) {
  json plugin = {{"name", c.plugin_name},
                 {"version", c.plugin_version},
                 {"vendor", c.plugin_vendor},
                 {"abi", c.plugin_abi},
                 {"file", c.plugin_file.filename().string()},
                 {"path", c.plugin_file.string()},
                 {"sha256", ""}};
  if (!c.plugin_file.empty()) plugin["sha256"] = file_sha256(c.plugin_file);
  return plugin;
}

json suite_part(const Report& report, const CertificateContext& c) {
  json expectations = nullptr;
  if (!c.expectations.empty())
    expectations = {{"file", c.expectations.filename().string()},
                    {"sha256", file_sha256(c.expectations)}};
  return {{"version", c.suite_version},
          {"name", report.suite},
          {"seed", report.seed},
          {"ops", c.ops},
          {"dtypes", c.dtypes},
          {"plan_sha256", c.plan_sha256},
          {"cases", static_cast<int64_t>(report.cases.size())},
          {"expectations", std::move(expectations)}};
}

json device_part(const Report& report, const CertificateContext& c) {
  json attributes = json::object();
  for (const DeviceAttribute& a : parse_device_attributes(report.device_attributes))
    attributes[a.key] = a.value;
  return {{"id", report.device},
          {"name", report.device_name},
          {"isa", c.isa},
          {"attributes", std::move(attributes)},
          {"host_cpu", report.host_cpu}};
}

// Coverage as counts, not fractions: the hashed part holds no floating-point numbers.
json coverage_part(const Report& report) {
  int64_t primitives = 0, native = 0, composites = 0;
  json ops = json::array();
  for (const OpCoverage& op : report.ops) {
    (op.primitive ? primitives : composites) += 1;
    native += op.primitive && op.implementation == "native";
    ops.push_back({op.op, op.primitive ? "primitive" : "composite", op.implementation});
  }
  const auto composites_run =
      static_cast<int64_t>(std::llround(report.composite_coverage() * composites));
  return {{"primitives", {{"native", native}, {"total", primitives}}},
          {"composites", {{"run", composites_run}, {"total", composites}}},
          {"ops", std::move(ops)}};
}

const json& member(const json& j, const char* key, const char* where) {
  BP_CHECK(j.is_object() && j.contains(key), ErrorCode::Parse,
           "not a Backplane certificate: {} has no \"{}\"", where, key);
  return j.at(key);
}

// The (op, status) of each case, from the certificate's list.
std::vector<std::pair<std::string, CaseStatus>> case_statuses(const json& certificate) {
  std::vector<std::pair<std::string, CaseStatus>> out;
  for (const CertifiedCase& c : certified_cases(certificate))
    out.emplace_back(CaseId::parse(c.id).op, c.status);
  return out;
}

// The results must agree with the cases: an edit of one that forgets the others is named.
void check_results(const json& certificate, std::vector<std::string>& problems) {
  const json& results = member(certificate, "results", "the certificate");
  const auto cases = case_statuses(certificate);
  const json recorded_summary = results.value("summary", json::object());
  const json summary = summary_of(cases);  // named: items() refers to it
  for (const auto& [status, count] : summary.items()) {
    const json recorded = recorded_summary.value(status, json(nullptr));
    if (recorded != count)
      problems.push_back(
          fmt::format("results.summary.{} is {}, but the certificate's cases hold {}", status,
                      recorded.dump(), count.dump()));
  }
  const json ops = per_op_results(cases);
  const json recorded = results.value("ops", json::object());
  for (const auto& [op, counts] : ops.items())
    if (recorded.value(op, json(nullptr)) != counts)
      problems.push_back(fmt::format("results.ops.{} is {}, but its cases hold {}", op,
                                     recorded.value(op, json(nullptr)).dump(), counts.dump()));
  for (const auto& [op, counts] : recorded.items())
    if (!ops.contains(op))
      problems.push_back(
          fmt::format("results.ops.{} is {}, but no case of it is listed", op, counts.dump()));
}

void check_signature(const json& certificate, const std::string& canonical,
                     const std::optional<fs::path>& public_key_pem, CertificateCheck& check) {
  const json signature = certificate.value("signature", json(nullptr));
  if (signature.is_null()) {
    check.seal = "checksum";
    if (public_key_pem)
      check.problems.push_back(fmt::format(
          "the certificate is not signed, but --public-key {} asks for a signature by key {}",
          public_key_pem->string(),
          crypto::key_fingerprint(crypto::ed25519_public_key(*public_key_pem))));
    return;
  }
  const std::string key = signature.value("public_key", "");
  check.seal = "signed by key " + crypto::key_fingerprint(key);
  if (signature.value("algorithm", "") != "ed25519" ||
      !crypto::verify_ed25519(canonical, key, signature.value("value", "")))
    check.problems.push_back(
        fmt::format("the Ed25519 signature by key {} does not match the content",
                    crypto::key_fingerprint(key)));
  if (public_key_pem) {
    const std::string expected = crypto::ed25519_public_key(*public_key_pem);
    if (expected != key)
      check.problems.push_back(fmt::format("signed by key {}, not by the key of {} ({})",
                                           crypto::key_fingerprint(key), public_key_pem->string(),
                                           crypto::key_fingerprint(expected)));
  }
}

}  // namespace

json make_certificate(const Report& report, const CertificateContext& context) {
  std::vector<std::pair<std::string, CaseStatus>> statuses;
  json cases = json::array();
  for (const CaseResult& c : report.cases) {
    statuses.emplace_back(c.op, c.status);
    cases.push_back({c.id, to_string(c.status)});
  }
  json certificate = {
      {"format", kCertificateFormat},
      {"created", context.created},
      {"plugin", plugin_part(context)},
      {"runtime", {{"version", context.runtime_version}, {"abi", context.runtime_abi}}},
      {"suite", suite_part(report, context)},
      {"device", device_part(report, context)},
      {"coverage", coverage_part(report)},
      {"results",
       {{"summary", summary_of(statuses)},
        {"ops", per_op_results(statuses)},
        {"cases", std::move(cases)}}}};
  seal_certificate(certificate, std::nullopt);
  return certificate;
}

namespace {

void append_text(const json& j, int indent, std::string& out) {
  const std::string pad(static_cast<size_t>(indent) + 1, ' ');
  const bool object = j.is_object();
  if ((!object && !j.is_array()) || j.empty() || (!object && !j.front().is_structured())) {
    out += j.dump(-1, ' ', true);
    return;
  }
  out += object ? "{\n" : "[\n";
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    out += first ? "" : ",\n";
    first = false;
    out += pad;
    if (object) out += json(it.key()).dump(-1, ' ', true) + ": ";
    if (object)
      append_text(it.value(), indent + 1, out);
    else
      out += it.value().dump(-1, ' ', true);  // a case, an op's coverage: one line each
  }
  out += "\n" + std::string(static_cast<size_t>(indent), ' ') + (object ? "}" : "]");
}

}  // namespace

std::string certificate_text(const json& certificate) {
  std::string out;
  append_text(certificate, 0, out);
  return out + "\n";
}

std::string canonical_form(const json& certificate) {
  json hashed = certificate;
  hashed.erase("integrity");
  hashed.erase("signature");
  // Keys sorted (nlohmann's objects are ordered maps), no whitespace, non-ASCII escaped.
  return hashed.dump(-1, ' ', true);
}

void seal_certificate(json& certificate, const std::optional<fs::path>& private_key_pem) {
  const std::string canonical = canonical_form(certificate);
  json integrity = {{"canonical_form",
                     "the certificate less \"integrity\" and \"signature\": "
                     "JSON, keys sorted, no whitespace, non-ASCII escaped"},
                    {"sha256", sha256_hex(canonical)},
                    {"seal", "checksum"},
                    {"note", kChecksumNote}};
  certificate.erase("signature");
  if (private_key_pem) {
    const crypto::Ed25519Signature s = crypto::sign_ed25519(canonical, *private_key_pem);
    certificate["signature"] = {{"algorithm", "ed25519"},
                                {"public_key", s.public_key},
                                {"fingerprint", crypto::key_fingerprint(s.public_key)},
                                {"value", s.value}};
    integrity["seal"] = "ed25519 signature";
    integrity["note"] = "signed by key " + crypto::key_fingerprint(s.public_key) +
                        "; `backplane verify --public-key` checks whose key it is";
  }
  certificate["integrity"] = std::move(integrity);
}

std::string signing_key_fingerprint(const fs::path& private_key_pem) {
  return crypto::key_fingerprint(crypto::sign_ed25519("", private_key_pem).public_key);
}

CertificateCheck check_certificate(const json& certificate,
                                   const std::optional<fs::path>& public_key_pem) {
  BP_CHECK(certificate.is_object() && certificate.value("format", "") == kCertificateFormat,
           ErrorCode::Parse, "not a Backplane certificate (\"format\" is not \"{}\")",
           kCertificateFormat);
  CertificateCheck check;
  const std::string canonical = canonical_form(certificate);
  const std::string recorded =
      member(certificate, "integrity", "the certificate").value("sha256", "");
  const std::string computed = sha256_hex(canonical);
  if (recorded != computed)
    check.problems.push_back(fmt::format(
        "the content does not match its SHA-256 (recorded {}, computed {}): the certificate "
        "was changed after it was written",
        recorded, computed));
  check_results(certificate, check.problems);
  check_signature(certificate, canonical, public_key_pem, check);
  return check;
}

std::vector<CertifiedCase> certified_cases(const json& certificate) {
  std::vector<CertifiedCase> out;
  const json& cases =
      member(member(certificate, "results", "the certificate"), "cases", "\"results\"");
  BP_CHECK(cases.is_array(), ErrorCode::Parse, "not a Backplane certificate: results.cases is {}",
           cases.type_name());
  for (const json& c : cases) {
    BP_CHECK(
        c.is_array() && c.size() == 2 && c[0].is_string() && c[1].is_string(), ErrorCode::Parse,
        "not a Backplane certificate: a results.cases entry is {}, not [id, status]", c.dump());
    const std::optional<CaseStatus> status = parse_case_status(c[1].get<std::string>());
    BP_CHECK(status.has_value(), ErrorCode::Parse, "certificate: case '{}' has unknown status '{}'",
             c[0].get<std::string>(), c[1].get<std::string>());
    out.push_back({c[0].get<std::string>(), *status});
  }
  return out;
}

}  // namespace bp::conformance
