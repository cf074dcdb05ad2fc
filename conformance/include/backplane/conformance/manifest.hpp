// A plugin's capability manifest (docs/plugin-guide.md, "Capability manifest"): its name,
// backends and the (op, dtype) pairs it claims, written by the vendor as TOML and embedded
// by backplane_add_plugin(... MANIFEST) into the module's ELF note .note.backplane.manifest
// with the plugin ABI version the module was compiled against. Read here without loading
// the plugin (a small ELF64 reader: no dlopen, no plugin code runs), and audited against
// what the plugin registers at init and what a conformance run passed.
// Plain data and pure functions (registered_kernels reads the runtime's op table).
#pragma once

#include "backplane/conformance/report.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bp::conformance {

// The note's owner and type (the ELF note layout: namesz, descsz, type, name, desc).
inline constexpr std::string_view kManifestNoteSection = ".note.backplane.manifest";
inline constexpr std::string_view kManifestNoteOwner = "Backplane";
inline constexpr uint32_t kManifestNoteType = 1;

// Op name -> mask of dtypes (bit i = bp::ScalarType code i, as bp_dtype_mask), ordered by op.
using OpDtypes = std::map<std::string, uint32_t>;

struct Manifest {
  std::string name;                   // [plugin] name
  std::vector<std::string> backends;  // [plugin] backends
  OpDtypes claims;                    // [claims]
  // The ABI the module was compiled against, from the note; absent for a TOML file.
  std::optional<uint32_t> abi_major, abi_minor;
  std::string source;  // where it was read from: the file, or "PLUGIN.so(.note...)"
  std::string text;    // the TOML text as written

  // Number of (op, dtype) pairs claimed.
  size_t claim_count() const;
};

// Parses a manifest's TOML text; `source` names it in errors. Throws bp::Error(Parse)
// "source:line: what" for a TOML syntax error, an unknown table or key, a missing name or
// backends, a value of the wrong type, an op the catalog does not have or an unknown or
// repeated dtype name (the short names of bp::dtype_name: "f32", "bf16", "i64", ...).
Manifest parse_manifest(std::string_view text, std::string_view source);
// Reads and parses a manifest file; throws bp::Error naming the file when unreadable.
Manifest load_manifest(const std::filesystem::path& file);

// The manifest note of an ELF file, read from its section headers (never loaded).
struct ManifestNote {
  uint32_t abi_major = 0, abi_minor = 0;
  std::string text;
};
// std::nullopt when the file is a well-formed ELF64 file without the note; throws
// bp::Error(InvalidArgument) naming the file and why it cannot be read: missing,
// unreadable, not ELF, not 64-bit little-endian, truncated or a malformed note.
std::optional<ManifestNote> read_manifest_note(const std::filesystem::path& file);
// The note, parsed. Throws bp::Error as read_manifest_note does, and for a file without a
// note "no capability manifest (built without backplane_add_plugin's MANIFEST)".
Manifest read_plugin_manifest(const std::filesystem::path& file);

// The manifest as TOML: one line per op, dtypes in code order (what --write-manifest
// writes, and what a vendor edits). `comment` goes first, as '#' lines.
std::string to_toml(const Manifest& manifest, std::string_view comment = {});
// {source, name, abi: {major, minor} | null, backends: [...], claims: {op: [dtype...]},
//  ops, claims_count}
nlohmann::json to_json(const Manifest& manifest);
// "f32, f16": the dtypes of a mask in code order.
std::string dtype_list(uint32_t mask);

// The kernels `backend` has in the runtime's op table now (entries of kind Kernel), op by op.
OpDtypes registered_kernels(const std::string& backend);

// The claims against what the plugin registered and what the run passed. Each entry is
// "op/dtype" ("add.Tensor/f16"), sorted.
struct ManifestAudit {
  size_t claims = 0;                        // pairs the manifest claims
  std::vector<std::string> not_registered;  // claimed, no kernel registered for it
  std::vector<std::string> not_passing;     // claimed and registered; a case failed, or
                                            // none passed (all unsupported, say)
  std::vector<std::string> not_claimed;     // registered without a claim
  std::vector<std::string> not_tested;      // claimed and registered; no case in the run
                                            // (--ops, --dtypes): not a failure
  // The first three lists are empty.
  bool ok() const;
};

// Audits `manifest` against `registered` (registered_kernels(backend), or a synthetic
// table) and the cases of `report`.
ManifestAudit audit_manifest(const Manifest& manifest, const OpDtypes& registered,
                             const Report& report);
// The same with the runtime's op table for `backend` (the device's backend, "cpu").
ManifestAudit audit_manifest(const Manifest& manifest, const std::string& backend,
                             const Report& report);

// A few lines: the counts, then up to `shown` entries of each non-empty list.
std::string to_text(const ManifestAudit& audit, size_t shown = 5);
// {claims, ok, not_registered: [...], not_passing: [...], not_claimed: [...],
//  not_tested: [...]}
nlohmann::json to_json(const ManifestAudit& audit);

}  // namespace bp::conformance
