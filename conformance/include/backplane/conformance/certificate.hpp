// Conformance certificates: a conformance run's result in a form someone who did not run it
// can check (docs/conformance.md, "Certificates"). A certificate names what was tested (the
// plugin file's SHA-256, the ABI, runtime and suite versions, the device and its ISA level,
// the seed and the selection), holds every case's status and the coverage, and seals all of
// it with a SHA-256 over a canonical form; optionally it is signed with an Ed25519 key the
// user supplies. Without a key the seal is a checksum: it shows the file is intact, not who
// wrote it, and the certificate says so.
//
// The canonical form is the certificate less "integrity" and "signature", as JSON with keys
// sorted, no whitespace and non-ASCII escaped: byte for byte what Python's
// `json.dumps(c, sort_keys=True, separators=(",", ":"))` gives, so any JSON library can
// recompute the digest. The hashed part holds strings and integers only, for that reason.
#pragma once

#include "backplane/conformance/report.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace bp::conformance {

inline constexpr const char* kCertificateFormat = "backplane-conformance-certificate/1";

// What a report does not hold about a run: the plugin file and descriptor, the runtime,
// and how the suite was chosen.
struct CertificateContext {
  std::string plugin_name, plugin_version, plugin_vendor;
  std::string plugin_abi;             // "1.3": what the plugin was built against
  std::filesystem::path plugin_file;  // hashed; "" for a built-in backend
  std::string runtime_version, runtime_abi;
  std::string suite_version;           // the runtime's: the suite ships with it
  std::string plan_sha256;             // over the planned case ids, in plan order
  std::string ops, dtypes;             // the --ops / --dtypes selection ("" = all)
  std::filesystem::path expectations;  // "" when none; hashed
  std::string isa;                     // the device's "isa" attribute, "" if none
  std::string created;                 // UTC, ISO 8601
};

// The certificate of `report` (a whole run, not one case), sealed with a checksum.
nlohmann::json make_certificate(const Report& report, const CertificateContext& context);

// Replaces the seal: the digest of the canonical form, and with `private_key_pem` (a PEM
// file holding an Ed25519 private key) a signature over the same bytes. Throws bp::Error
// naming the key file when it cannot be read or is not Ed25519.
void seal_certificate(nlohmann::json& certificate,
                      const std::optional<std::filesystem::path>& private_key_pem);

// The fingerprint of the Ed25519 private key in a PEM file, checked as seal_certificate
// would: for a command to refuse a bad key before a run rather than after it.
std::string signing_key_fingerprint(const std::filesystem::path& private_key_pem);

// The certificate as a file: indented objects, one array element per line (a full run has
// tens of thousands of cases). Any formatting parses back to the same certificate.
std::string certificate_text(const nlohmann::json& certificate);

// The bytes the digest and the signature cover.
std::string canonical_form(const nlohmann::json& certificate);

// What `backplane verify` finds without running anything.
struct CertificateCheck {
  std::vector<std::string> problems;  // each names what differs; empty = intact
  std::string seal;                   // "checksum" or "signed by <fingerprint>"
};

// Checks the seal (digest, and the signature when there is one), that the per-op results
// and the summary agree with the cases, and, with `public_key_pem`, that the certificate
// is signed by that key. Throws bp::Error when the text is not a certificate at all.
CertificateCheck check_certificate(const nlohmann::json& certificate,
                                   const std::optional<std::filesystem::path>& public_key_pem);

// One certified case.
struct CertifiedCase {
  std::string id;
  CaseStatus status = CaseStatus::Passed;
};
std::vector<CertifiedCase> certified_cases(const nlohmann::json& certificate);

// SHA-256 in lowercase hex, of bytes and of a file's contents (throws naming the file).
std::string sha256_hex(std::string_view bytes);
std::string file_sha256(const std::filesystem::path& file);

}  // namespace bp::conformance
