// `backplane inspect PLUGIN.so [--json]`: the capability manifest a plugin carries (its
// name, the ABI it was compiled against, its backends and the (op, dtype) pairs it
// claims), read from the file's ELF note without loading it: no code of the plugin runs,
// so a plugin that would crash the runtime, or one built for a newer runtime, reads as
// well. `--write-manifest OUT.toml` does the opposite: it loads the plugin (running its
// init) and writes a manifest of the kernels it registers, for a vendor to start from.
// docs/cli.md documents it; conformance/include/backplane/conformance/manifest.hpp reads.
//
// Exit code: 0; 1 for a file that is not a readable ELF file, has no manifest or has a
// bad one (one line naming the file and why), or a plugin --write-manifest cannot load;
// 2 for a bad command line.
#include "command.hpp"
#include "plugin_options.hpp"

#include <backplane/conformance/manifest.hpp>
#include <backplane/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>

namespace bp::cli {
namespace {
namespace cf = bp::conformance;

struct InspectOptions {
  std::string plugin;
  bool json = false;
  std::string write_manifest;  // "" = inspect
  std::string config;          // --config, for --write-manifest's runtime
};

void print_text(const cf::Manifest& m, const std::string& file) {
  fmt::print("plugin: {}\nfile: {}\n", m.name, file);
  if (m.abi_major && m.abi_minor)
    fmt::print("ABI: {}.{} (the plugin.h it was compiled against)\n", *m.abi_major, *m.abi_minor);
  fmt::print("backends: {}\n", fmt::join(m.backends, ", "));
  fmt::print("claims: {} op{}, {} (op, dtype) pair{}\n", m.claims.size(),
             m.claims.size() == 1 ? "" : "s", m.claim_count(), m.claim_count() == 1 ? "" : "s");
  size_t width = 0;
  for (const auto& [op, mask] : m.claims) width = std::max(width, op.size() + 1);
  for (const auto& [op, mask] : m.claims)
    fmt::print("  {:<{}} {}\n", op + ":", width, cf::dtype_list(mask));
}

int run_inspect(const InspectOptions& o) {
  try {
    const std::optional<cf::ManifestNote> note = cf::read_manifest_note(o.plugin);
    if (!note) {
      fmt::print(stderr,
                 "backplane: error: '{}': no capability manifest (built without "
                 "backplane_add_plugin's MANIFEST)\n",
                 o.plugin);
      return kExitFailure;
    }
    const cf::Manifest m = cf::read_plugin_manifest(o.plugin);
    if (o.json) {
      nlohmann::json out = cf::to_json(m);
      out["file"] = o.plugin;
      fmt::print("{}\n", out.dump(2));
    } else {
      print_text(m, o.plugin);
    }
    return kExitOk;
  } catch (const Error& e) {
    fmt::print(stderr, "backplane: error: {}\n", e.what());
    return kExitFailure;
  }
}

// The loaded plugin's report, or an error saying why it did not load.
PluginLoadReport load_one(const InspectOptions& o) {
  PluginOptions options;
  options.plugins = {o.plugin};
  options.config = o.config;
  const LoadedRuntime loaded = load_plugins(options);
  for (const LoadedPlugin& p : loaded.plugins) {
    if (!p.explicit_file) continue;
    const PluginLoadReport& r = p.report;
    if (r.status != LoadStatus::Loaded && r.status != LoadStatus::NoDevices)
      BP_FAIL(ErrorCode::InvalidArgument, "'{}' did not load ({}): {}", o.plugin,
              to_string(r.status), r.message);
    return r;
  }
  BP_FAIL(ErrorCode::InvalidArgument, "'{}' was not loaded (skipped by the config?)", o.plugin);
}

int run_write_manifest(const InspectOptions& o) {
  try {
    fmt::print("loading {} to read what it registers (this runs the plugin's code)\n", o.plugin);
    const PluginLoadReport r = load_one(o);
    cf::Manifest m;
    m.name = r.plugin;
    m.backends = r.backends;
    for (const std::string& backend : r.backends)
      for (const auto& [op, mask] : cf::registered_kernels(backend)) m.claims[op] |= mask;
    const std::string text = cf::to_toml(
        m,
        fmt::format("The capability manifest of the plugin {} (docs/plugin-guide.md, \"Capability\n"
                    "manifest\"): the (op, dtype) pairs it claims. Written by `backplane inspect\n"
                    "--write-manifest` from the kernels it registered; claim only what passes the\n"
                    "conformance suite, which audits these claims.",
                    r.plugin));
    std::ofstream out(o.write_manifest, std::ios::binary);
    out << text;
    out.close();
    BP_CHECK(out.good(), ErrorCode::InvalidArgument, "cannot write '{}'", o.write_manifest);
    fmt::print("wrote {}: plugin {}, backends {}, {} ops, {} (op, dtype) pairs\n", o.write_manifest,
               m.name, fmt::join(m.backends, ", "), m.claims.size(), m.claim_count());
    return kExitOk;
  } catch (const Error& e) {
    fmt::print(stderr, "backplane: error: {}\n", e.what());
    return kExitFailure;
  }
}

}  // namespace

void add_inspect_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<InspectOptions>();
  CLI::App* command = app.add_subcommand(
      "inspect",
      "Show a plugin file's capability manifest (name, ABI, backends, claimed op/dtype "
      "pairs), read without loading the plugin");
  command->add_option("PLUGIN", options->plugin, "The plugin file (libbackplane_plugin_NAME.so)")
      ->required();
  command->add_flag("--json", options->json,
                    "Print JSON: {source, name, abi: {major, minor}, backends: [...], claims: "
                    "{op: [dtype...]}, ops, claims_count, file}");
  auto* write = command->add_option(
      "--write-manifest", options->write_manifest,
      "Load the plugin instead (this RUNS its code) and write a manifest of the kernels it "
      "registers to this TOML file, to start a manifest from");
  write->type_name("OUT.toml");
  command
      ->add_option("--config", options->config,
                   "With --write-manifest: read this config file instead of the usual search")
      ->type_name("FILE")
      ->needs(write);
  command->get_option("--json")->excludes(write);
  command->footer(
      "Without --write-manifest the file is read, never loaded: no code of the plugin runs.\n"
      "Exit status: 0; 1 for a file that is not a 64-bit ELF file, has no manifest (built "
      "without backplane_add_plugin's MANIFEST) or a bad one, or a plugin --write-manifest "
      "cannot load; 2 for a bad command line.\n");
  command->callback([options, &exit_code] {
    exit_code =
        options->write_manifest.empty() ? run_inspect(*options) : run_write_manifest(*options);
  });
}

}  // namespace bp::cli
