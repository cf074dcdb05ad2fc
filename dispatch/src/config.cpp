// The config file (TOML, read with toml++), its search order, the BACKPLANE_* environment
// overrides, and the checks that need the names of the loaded backends. Every error names
// the file (or variable), the line and the key, like the conformance expectations reader.
#include "backplane/dispatch/config.hpp"

#include "backplane/core/catalog.hpp"
#include "backplane/core/error.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace bp {
namespace fs = std::filesystem;

namespace {

std::string_view type_name(toml::node_type type) {
  switch (type) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

bool is_identifier(std::string_view name) {
  if (name.empty() || !((name[0] >= 'a' && name[0] <= 'z') || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::optional<FallbackPolicy> parse_policy(std::string_view text) {
  if (text == "error") return FallbackPolicy::Error;
  if (text == "cpu") return FallbackPolicy::Cpu;
  return std::nullopt;
}

// Reads one parsed file into a Config; every error is thrown as "file:line: key: what".
class Reader {
 public:
  Reader(std::string_view file, fs::path base_dir) : file_(file), base_dir_(std::move(base_dir)) {}

  void read(const toml::table& root, Config& config) const {
    for (auto&& [key, value] : root) {
      const std::string_view name = key.str();
      if (name == "plugins") {
        read_plugins(table_at(key, value, "plugins"), config.plugins);
      } else if (name == "devices") {
        read_devices(table_at(key, value, "devices"), config.devices);
      } else if (name == "fallback") {
        read_fallback(table_at(key, value, "fallback"), config.fallback);
      } else if (name == "backends") {
        read_backends(table_at(key, value, "backends"), config.backend_options);
      } else if (name == "memory") {
        read_memory(table_at(key, value, "memory"), config.memory);
      } else {
        unknown_key(key, name, "plugins, devices, fallback, memory or backends");
      }
    }
    check_default_against_priority(config.devices);
  }

 private:
  [[noreturn]] void fail(const toml::source_region& where, std::string_view key,
                         std::string_view what) const {
    BP_FAIL(ErrorCode::Parse, "{}:{}: {}: {}", file_, where.begin.line, key, what);
  }
  [[noreturn]] void unknown_key(const toml::key& key, std::string_view full_key,
                                std::string_view expected) const {
    fail(key.source(), full_key, fmt::format("unknown key (expected {})", expected));
  }
  std::string origin(const toml::source_region& where) const {
    return fmt::format("{}:{}", file_, where.begin.line);
  }

  const toml::table& table_at(const toml::key& key, const toml::node& value,
                              std::string_view full_key) const {
    const toml::table* t = value.as_table();
    if (t == nullptr) {
      fail(key.source(), full_key,
           fmt::format("expected a table, got {}", type_name(value.type())));
    }
    return *t;
  }

  const std::string& string_at(const toml::node& value, std::string_view full_key) const {
    if (!value.is_string()) {
      fail(value.source(), full_key,
           fmt::format("expected a string, got {}", type_name(value.type())));
    }
    return value.as_string()->get();
  }

  // An array of non-empty strings; element errors name the index ("plugins.load[1]").
  std::vector<std::string> strings_at(const toml::node& value, std::string_view full_key) const {
    const toml::array* list = value.as_array();
    if (list == nullptr) {
      fail(value.source(), full_key,
           fmt::format("expected an array of strings, got {}", type_name(value.type())));
    }
    std::vector<std::string> out;
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string item_key = fmt::format("{}[{}]", full_key, i);
      const std::string& text = string_at((*list)[i], item_key);
      if (text.empty()) fail((*list)[i].source(), item_key, "expected a non-empty string");
      out.push_back(text);
    }
    return out;
  }

  std::vector<fs::path> paths_at(const toml::node& value, std::string_view full_key) const {
    std::vector<fs::path> out;
    for (const std::string& text : strings_at(value, full_key)) {
      const fs::path p(text);
      out.push_back(p.is_relative() && !base_dir_.empty() ? base_dir_ / p : p);
    }
    return out;
  }

  DeviceSelector selector_at(const toml::node& value, std::string_view full_key) const {
    const std::string& text = string_at(value, full_key);
    try {
      return DeviceSelector::parse(text);
    } catch (const Error& e) {
      fail(value.source(), full_key, e.what());
    }
  }

  void read_plugins(const toml::table& table, Config::Plugins& out) const {
    for (auto&& [key, value] : table) {
      const std::string_view name = key.str();
      const std::string full = fmt::format("plugins.{}", name);
      if (name == "search_path") {
        out.search_path = {paths_at(value, full), origin(key.source())};
      } else if (name == "load") {
        out.load = {paths_at(value, full), origin(key.source())};
      } else if (name == "deny") {
        out.deny = {strings_at(value, full), origin(key.source())};
      } else {
        unknown_key(key, full, "search_path, load or deny");
      }
    }
  }

  void read_devices(const toml::table& table, Config::Devices& out) const {
    for (auto&& [key, value] : table) {
      const std::string_view name = key.str();
      const std::string full = fmt::format("devices.{}", name);
      if (name == "priority") {
        out.priority = {selector_at(value, full), origin(key.source())};
      } else if (name == "default") {
        out.default_device = {selector_at(value, full), origin(key.source())};
      } else {
        unknown_key(key, full, "priority or default");
      }
    }
  }

  // A default device the priority list excludes could never be found: its plugin would not
  // even be opened. Said here rather than as "no device" at run time.
  void check_default_against_priority(const Config::Devices& devices) const {
    if (!devices.default_device.value) return;
    const DeviceSelector& def = *devices.default_device.value;
    for (const DeviceSelector::Item& item : def.items()) {
      if (!devices.priority.value.excludes_backend(item.backend)) continue;
      BP_FAIL(ErrorCode::Parse,
              "{}: devices.default: backend '{}' is excluded by devices.priority "
              "'{}' ({})",
              devices.default_device.origin, item.backend, devices.priority.value.str(),
              devices.priority.origin);
    }
  }

  void read_fallback(const toml::table& table, Config::Fallback& out) const {
    for (auto&& [key, value] : table) {
      const std::string_view name = key.str();
      if (name == "policy") {
        const std::string& text = string_at(value, "fallback.policy");
        const std::optional<FallbackPolicy> policy = parse_policy(text);
        if (!policy) {
          fail(value.source(), "fallback.policy",
               fmt::format("expected \"error\" or \"cpu\", got \"{}\"", text));
        }
        out.policy = {*policy, origin(key.source())};
      } else if (name == "ops") {
        for (auto&& [backend, list] : table_at(key, value, "fallback.ops")) {
          const std::string full = fmt::format("fallback.ops.{}", backend.str());
          check_backend_name(backend, full);
          std::vector<std::string> ops = strings_at(list, full);
          const toml::array& items = *list.as_array();
          for (size_t i = 0; i < ops.size(); ++i)
            check_op(ops[i], items[i].source(), fmt::format("{}[{}]", full, i));
          out.ops[std::string(backend.str())] = {std::move(ops), origin(backend.source())};
        }
      } else {
        unknown_key(key, fmt::format("fallback.{}", name), "policy or ops");
      }
    }
  }

  void read_memory(const toml::table& table, Config::Memory& out) const {
    for (auto&& [key, value] : table) {
      const std::string_view name = key.str();
      if (name == "allocator") {
        const std::string& text = string_at(value, "memory.allocator");
        const std::optional<AllocatorMode> mode = parse_allocator_mode(text);
        if (!mode) {
          fail(value.source(), "memory.allocator",
               fmt::format("expected \"caching\" or \"direct\", got \"{}\"", text));
        }
        out.allocator = {*mode, origin(key.source())};
      } else {
        unknown_key(key, fmt::format("memory.{}", name), "allocator");
      }
    }
  }

  void check_backend_name(const toml::key& key, std::string_view full_key) const {
    if (!is_identifier(key.str())) {
      fail(key.source(), full_key,
           fmt::format("'{}' is not a backend name ([a-z_][a-z0-9_]*)", key.str()));
    }
  }

  // A full name ("add.Tensor") or a base name ("add") of at least one catalog op; every op it
  // names must be able to run on the CPU instead (factories cannot).
  void check_op(const std::string& name, const toml::source_region& where,
                std::string_view full_key) const {
    const Catalog& catalog = Catalog::get();
    std::vector<const OpDef*> named;
    if (const OpDef* exact = catalog.find(name)) {
      named.push_back(exact);
    } else if (name.find('.') == std::string::npos) {
      for (const OpDef& op : catalog.ops())
        if (op.name.substr(0, op.name.find('.')) == name) named.push_back(&op);
    }
    if (named.empty()) {
      try {
        catalog.at(name);  // words "unknown operator 'x'; did you mean ...?"
      } catch (const Error& e) {
        fail(where, full_key, e.what());
      }
    }
    for (const OpDef* op : named) {
      if (!op->can_fall_back) {
        fail(where, full_key,
             fmt::format("operator '{}' cannot fall back to the CPU (docs/fallback.md lists "
                         "the operators that cannot)",
                         op->name));
      }
    }
  }

  void read_backends(const toml::table& table,
                     std::map<std::string, Setting<std::string>, std::less<>>& out) const {
    for (auto&& [backend, value] : table) {
      const std::string full = fmt::format("backends.{}", backend.str());
      check_backend_name(backend, full);
      for (auto&& [key, option] : table_at(backend, value, full)) {
        const std::string option_key = fmt::format("{}.{}", full, key.str());
        if (key.str() != "options") unknown_key(key, option_key, "options");
        std::string text;
        if (const toml::table* t = option.as_table()) {
          std::ostringstream os;
          os << toml::toml_formatter(*t);
          text = os.str();
        } else if (option.is_string()) {
          text = option.as_string()->get();
        } else {
          fail(option.source(), option_key,
               fmt::format("expected a string or a table, got {}", type_name(option.type())));
        }
        out[std::string(backend.str())] = {std::move(text), origin(key.source())};
      }
    }
  }

  std::string file_;
  fs::path base_dir_;
};

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

}  // namespace

Config Config::parse(std::string_view text, std::string_view source_name,
                     const fs::path& base_dir) {
  toml::table root;
  try {
    root = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    BP_FAIL(ErrorCode::Parse, "{}:{}: TOML syntax error: {}", source_name, e.source().begin.line,
            e.description());
  }
  Config config;
  Reader(source_name, base_dir).read(root, config);
  config.source = fs::path(source_name);
  return config;
}

Config Config::load(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  BP_CHECK(in.good(), ErrorCode::InvalidArgument, "config file '{}' cannot be read", path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path.string(), path.parent_path());
}

const DeviceSelector& Config::default_selector() const {
  return devices.default_device.value ? *devices.default_device.value : devices.priority.value;
}

std::optional<std::string> Config::skip_reason(const fs::path& file) const {
  const std::string file_name = file.filename().string();
  const std::optional<std::string> plugin = plugin_name_from_file(file);
  for (const std::string& entry : plugins.deny.value) {
    if (entry == file_name || entry == file.string() || (plugin && entry == *plugin))
      return fmt::format("denied by plugins.deny ({})", plugins.deny.origin);
  }
  // A negation names the plugin's file for sure. A list leaves out every backend it does
  // not name, but only a backend Backplane ships is known to live in the file named after
  // it: an out-of-tree plugin's file ("acme") may register another name ("acme_npu"), so it
  // is opened, and its backends are then simply not selected.
  const DeviceSelector& priority = devices.priority.value;
  if (!plugin || !priority.excludes_backend(*plugin)) return std::nullopt;
  const auto& negated = priority.excluded();
  const auto shipped = DeviceSelector::default_priority();
  if (std::find(negated.begin(), negated.end(), *plugin) != negated.end() ||
      std::find(shipped.begin(), shipped.end(), *plugin) != shipped.end()) {
    return fmt::format("backend '{}' excluded by devices.priority '{}' ({})", *plugin,
                       priority.str(), devices.priority.origin);
  }
  return std::nullopt;
}

bool Config::denies_plugin(std::string_view plugin_name) const {
  const auto& deny = plugins.deny.value;
  return std::find(deny.begin(), deny.end(), plugin_name) != deny.end();
}

bool Config::forces_fallback(std::string_view backend, std::string_view op_full_name) const {
  const auto it = fallback.ops.find(backend);
  if (it == fallback.ops.end()) return false;
  const std::string_view base = op_full_name.substr(0, op_full_name.find('.'));
  return std::any_of(it->second.value.begin(), it->second.value.end(),
                     [&](const std::string& op) { return op == op_full_name || op == base; });
}

std::vector<std::string> Config::forced_ops(std::string_view backend) const {
  std::vector<std::string> out;
  for (const OpDef& op : Catalog::get().ops())
    if (forces_fallback(backend, op.name)) out.push_back(op.name);
  return out;
}

void Config::validate_backends(std::span<const std::string> backends,
                               std::span<const std::string> plugins_loaded) const {
  auto check_selector = [&](const DeviceSelector& s, std::string_view key,
                            const std::string& where) {
    if (const std::vector<std::string> unknown = s.unknown_backends(backends); !unknown.empty()) {
      BP_FAIL(ErrorCode::InvalidArgument, "{}",
              unknown_backend_message(fmt::format("{}: {} '{}'", where, key, s.str()),
                                      unknown.front(), backends));
    }
  };
  check_selector(devices.priority.value, "devices.priority", devices.priority.origin);
  if (devices.default_device.value)
    check_selector(*devices.default_device.value, "devices.default", devices.default_device.origin);
  for (const auto& [backend, setting] : fallback.ops) {
    if (std::find(backends.begin(), backends.end(), backend) != backends.end()) continue;
    BP_FAIL(ErrorCode::InvalidArgument, "{}",
            unknown_backend_message(fmt::format("{}: fallback.ops.{}", setting.origin, backend),
                                    backend, backends));
  }
  std::vector<std::string> names(backends.begin(), backends.end());
  for (const std::string& p : plugins_loaded)
    if (std::find(names.begin(), names.end(), p) == names.end()) names.push_back(p);
  for (const auto& [name, setting] : backend_options) {
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    BP_FAIL(
        ErrorCode::InvalidArgument, "{}",
        unknown_backend_message(fmt::format("{}: backends.{}", setting.origin, name), name, names));
  }
}

std::vector<Config::Entry> Config::entries() const {
  std::vector<Entry> out;
  auto quoted = [](const auto& items) {
    std::vector<std::string> parts;
    for (const auto& i : items) parts.push_back(fmt::format("\"{}\"", fs::path(i).string()));
    return fmt::format("[{}]", fmt::join(parts, ", "));
  };
  out.push_back(
      {"plugins.search_path", quoted(plugins.search_path.value), plugins.search_path.origin});
  out.push_back({"plugins.load", quoted(plugins.load.value), plugins.load.origin});
  out.push_back({"plugins.deny", quoted(plugins.deny.value), plugins.deny.origin});
  out.push_back({"devices.priority", devices.priority.value.str(), devices.priority.origin});
  out.push_back({"devices.default",
                 devices.default_device.value ? devices.default_device.value->str() : "",
                 devices.default_device.origin});
  out.push_back(
      {"fallback.policy", std::string(to_string(fallback.policy.value)), fallback.policy.origin});
  for (const auto& [backend, setting] : fallback.ops)
    out.push_back({"fallback.ops." + backend, quoted(setting.value), setting.origin});
  for (const auto& [name, setting] : backend_options)
    out.push_back({"backends." + name + ".options", setting.value, setting.origin});
  out.push_back({"memory.allocator", std::string(to_string(memory.allocator.value)),
                 memory.allocator.origin});
  out.push_back({"trace", trace_file.value.string(), trace_file.origin});
  return out;
}

std::optional<std::string> plugin_name_from_file(const fs::path& file) {
  constexpr std::string_view kPrefix = "libbackplane_plugin_";
  constexpr std::string_view kSuffix = ".so";
  const std::string name = file.filename().string();
  if (name.size() <= kPrefix.size() + kSuffix.size() || !name.starts_with(kPrefix) ||
      !name.ends_with(kSuffix))
    return std::nullopt;
  return name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
}

std::optional<fs::path> find_config_file() {
  if (const char* named = env("BACKPLANE_CONFIG")) {
    std::error_code ec;
    BP_CHECK(fs::is_regular_file(named, ec), ErrorCode::InvalidArgument,
             "BACKPLANE_CONFIG names '{}', which is not a file (unset it to use the default "
             "search order)",
             named);
    return fs::path(named);
  }
  std::vector<fs::path> candidates{"backplane.toml"};
  if (const char* xdg = env("XDG_CONFIG_HOME")) {
    candidates.push_back(fs::path(xdg) / "backplane" / "config.toml");
  } else if (const char* home = env("HOME")) {
    candidates.push_back(fs::path(home) / ".config" / "backplane" / "config.toml");
  }
  candidates.emplace_back("/etc/backplane/config.toml");
  for (const fs::path& c : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) return c;
  }
  return std::nullopt;
}

void apply_environment(Config& config) {
  if (const char* text = env("BACKPLANE_DEVICE")) {
    DeviceSelector s;
    try {
      s = DeviceSelector::parse(text);
    } catch (const Error& e) {
      BP_FAIL(ErrorCode::Parse, "BACKPLANE_DEVICE: {}", e.what());
    }
    config.devices.priority = {s, "BACKPLANE_DEVICE"};
    config.devices.default_device = {s, "BACKPLANE_DEVICE"};
  }
  if (const char* text = env("BACKPLANE_PLUGIN_PATH")) {
    std::vector<fs::path> dirs;
    std::string_view list = text;
    while (!list.empty()) {
      const size_t colon = list.find(':');
      if (const std::string_view item = list.substr(0, colon); !item.empty())
        dirs.emplace_back(item);
      if (colon == std::string_view::npos) break;
      list.remove_prefix(colon + 1);
    }
    // ":" alone names no directory and changes nothing, like an empty variable.
    if (auto& setting = config.plugins.search_path; !dirs.empty()) {
      setting.origin = setting.origin.empty() ? "BACKPLANE_PLUGIN_PATH"
                                              : "BACKPLANE_PLUGIN_PATH, " + setting.origin;
      setting.value.insert(setting.value.begin(), dirs.begin(), dirs.end());
    }
  }
  if (const char* text = env("BACKPLANE_FALLBACK")) {
    const std::optional<FallbackPolicy> policy = parse_policy(text);
    BP_CHECK(policy.has_value(), ErrorCode::Parse,
             "BACKPLANE_FALLBACK: expected \"error\" or \"cpu\", got \"{}\"", text);
    config.fallback.policy = {*policy, "BACKPLANE_FALLBACK"};
  }
  if (const char* text = env("BACKPLANE_ALLOCATOR")) {
    const std::optional<AllocatorMode> mode = parse_allocator_mode(text);
    BP_CHECK(mode.has_value(), ErrorCode::Parse,
             "BACKPLANE_ALLOCATOR: expected \"caching\" or \"direct\", got \"{}\"", text);
    config.memory.allocator = {*mode, "BACKPLANE_ALLOCATOR"};
  }
  if (const char* text = env("BACKPLANE_TRACE"))
    config.trace_file = {fs::path(text), "BACKPLANE_TRACE"};
}

Config load_config() {
  Config config;
  if (const std::optional<fs::path> file = find_config_file()) config = Config::load(*file);
  apply_environment(config);
  return config;
}

}  // namespace bp
