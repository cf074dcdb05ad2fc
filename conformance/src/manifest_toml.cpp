// Capability manifests as TOML (manifest.hpp): parsing with toml++, where every error names
// the source and line, and the writing back (`backplane inspect --write-manifest`).
#include "backplane/conformance/manifest.hpp"

#include "toml_text.hpp"

#include <backplane/core/catalog.hpp>
#include <backplane/core/dtype.hpp>
#include <backplane/core/dtype_mask.hpp>
#include <backplane/core/error.hpp>

#include <fmt/format.h>
#include <toml++/toml.h>

#include <bit>
#include <fstream>
#include <sstream>

namespace bp::conformance {
namespace {

constexpr std::string_view kDtypeNames =
    "bool, i8, u8, i16, i32, i64, f16, bf16, f32, f64 (bp::dtype_name's short names)";

// Reads the tables of one manifest; every error is thrown as "source:line: what".
class Reader {
 public:
  explicit Reader(std::string_view source) : source_(source) {}

  [[noreturn]] void fail(const toml::source_region& where, std::string_view what) const {
    BP_FAIL(ErrorCode::Parse, "{}:{}: {}", source_, where.begin.line, what);
  }

  void read(const toml::table& root, Manifest& out) const {
    const toml::table* plugin = nullptr;
    const toml::table* claims = nullptr;
    for (auto&& [key, value] : root) {
      const toml::table* table = value.as_table();
      if (key.str() != "plugin" && key.str() != "claims")
        fail(key.source(), fmt::format("unknown key '{}' (a manifest has the tables [plugin] "
                                       "and [claims])",
                                       key.str()));
      if (table == nullptr)
        fail(key.source(), fmt::format("'{}' must be a table, [{}]", key.str(), key.str()));
      (key.str() == "plugin" ? plugin : claims) = table;
    }
    if (plugin == nullptr) fail(root.source(), "the manifest has no [plugin] table");
    read_plugin(*plugin, out);
    if (claims != nullptr) read_claims(*claims, out.claims);
  }

 private:
  // [plugin]: name (a non-empty string) and backends (a non-empty array of names).
  void read_plugin(const toml::table& plugin, Manifest& out) const {
    bool has_backends = false;
    for (auto&& [key, value] : plugin) {
      if (key.str() == "name") {
        const std::optional<std::string> name = value.value<std::string>();
        if (!value.is_string() || !name || name->empty())
          fail(value.source(), "[plugin] name must be a non-empty string");
        out.name = *name;
      } else if (key.str() == "backends") {
        out.backends = strings(value, "[plugin] backends");
        has_backends = true;
      } else {
        fail(key.source(), fmt::format("[plugin]: unknown key '{}' (expected 'name' and "
                                       "'backends')",
                                       key.str()));
      }
    }
    if (out.name.empty()) fail(plugin.source(), "[plugin] has no 'name'");
    if (!has_backends) fail(plugin.source(), "[plugin] has no 'backends'");
  }

  // [claims]: "op.overload" = ["f32", ...], the op in the catalog, each dtype once.
  void read_claims(const toml::table& claims, OpDtypes& out) const {
    for (auto&& [key, value] : claims) {
      const std::string op(key.str());
      if (Catalog::get().find(op) == nullptr)
        fail(key.source(), fmt::format("[claims]: '{}' is not an op of the catalog (`backplane "
                                       "ops` lists them; an op with an overload is quoted: "
                                       "\"add.Tensor\")",
                                       op));
      uint32_t mask = 0;
      for (const std::string& name : strings(value, "[claims] " + op)) {
        const std::optional<ScalarType> dtype = parse_dtype(name);
        if (!dtype || dtype_name(*dtype) != name)
          fail(value.source(), fmt::format("[claims] {}: unknown dtype '{}' (expected one of {})",
                                           op, name, kDtypeNames));
        const uint32_t bit = 1u << static_cast<unsigned>(*dtype);
        if ((mask & bit) != 0)
          fail(value.source(), fmt::format("[claims] {}: '{}' appears twice", op, name));
        mask |= bit;
      }
      out[op] = mask;
    }
  }

  // A non-empty array of strings.
  std::vector<std::string> strings(const toml::node& value, const std::string& what) const {
    const toml::array* array = value.as_array();
    if (array == nullptr || array->empty())
      fail(value.source(), fmt::format("{} must be a non-empty array of strings", what));
    std::vector<std::string> out;
    for (const toml::node& item : *array) {
      if (!item.is_string()) fail(item.source(), fmt::format("{} must hold strings", what));
      out.push_back(item.as_string()->get());
    }
    return out;
  }

  std::string source_;
};

// A TOML key: bare when it may be, else quoted ("add.Tensor").
std::string toml_key(const std::string& key) {
  const bool bare = !key.empty() && key.find_first_not_of(
                                        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
                                        "KLMNOPQRSTUVWXYZ0123456789_-") == std::string::npos;
  return bare ? key : fmt::format("\"{}\"", key);
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "\"" : ", \"") + item + "\"";
  return "[" + out + "]";
}

}  // namespace

size_t Manifest::claim_count() const {
  size_t n = 0;
  for (const auto& [op, mask] : claims) n += static_cast<size_t>(std::popcount(mask));
  return n;
}

Manifest parse_manifest(std::string_view text, std::string_view source) {
  const toml::table root = parse_toml_text(text, source);
  Manifest out;
  out.source = std::string(source);
  out.text = std::string(text);
  Reader(source).read(root, out);
  return out;
}

Manifest load_manifest(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  BP_CHECK(in.good(), ErrorCode::InvalidArgument, "manifest '{}' cannot be read", file.string());
  std::ostringstream text;
  text << in.rdbuf();
  return parse_manifest(text.str(), file.string());
}

std::string dtype_list(uint32_t mask) {
  return fmt::format("{}", fmt::join(dtype_mask_names(mask), ", "));
}

std::string to_toml(const Manifest& manifest, std::string_view comment) {
  std::string out;
  std::istringstream lines{std::string(comment)};
  for (std::string line; std::getline(lines, line);)
    out += line.empty() ? "#\n" : "# " + line + "\n";
  if (!out.empty()) out += "\n";
  out += fmt::format("[plugin]\nname = \"{}\"\nbackends = {}\n\n[claims]\n", manifest.name,
                     quoted_list(manifest.backends));
  for (const auto& [op, mask] : manifest.claims)
    out += fmt::format("{} = {}\n", toml_key(op), quoted_list(dtype_mask_names(mask)));
  return out;
}

nlohmann::json to_json(const Manifest& manifest) {
  nlohmann::json claims = nlohmann::json::object();
  for (const auto& [op, mask] : manifest.claims) claims[op] = dtype_mask_names(mask);
  nlohmann::json abi = nullptr;
  if (manifest.abi_major && manifest.abi_minor)
    abi = {{"major", *manifest.abi_major}, {"minor", *manifest.abi_minor}};
  nlohmann::json out = {{"source", manifest.source},
                        {"name", manifest.name},
                        {"abi", abi},
                        {"backends", manifest.backends},
                        {"claims", std::move(claims)},
                        {"ops", manifest.claims.size()},
                        {"claims_count", manifest.claim_count()}};
  return out;
}

}  // namespace bp::conformance
