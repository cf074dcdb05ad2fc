// Runtime start-up for the `backplane` subcommands (see plugin_options.hpp).
#include "plugin_options.hpp"

#include <backplane/core/error.hpp>
#include <backplane/dispatch/init.hpp>

#include <set>
#include <system_error>

namespace bp::cli {
namespace fs = std::filesystem;

namespace {

fs::path canonical_or_self(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? p : c;
}

// The config the command runs with: --config or the usual search, the environment, then
// --device over both.
Config command_config(const PluginOptions& options) {
  Config config;
  if (options.config.empty()) {
    config = load_config();
  } else {
    config = Config::load(options.config);
    apply_environment(config);
  }
  if (!options.device.empty()) {
    DeviceSelector selector;
    try {
      selector = DeviceSelector::parse(options.device);
    } catch (const Error& e) {
      BP_FAIL(ErrorCode::Parse, "--device: {}", e.what());
    }
    config.devices.priority = {selector, "--device"};
    config.devices.default_device = {selector, "--device"};
  }
  return config;
}

}  // namespace

void add_plugin_options(CLI::App& command, PluginOptions& options) {
  command
      .add_option("--plugin", options.plugins,
                  "Load this plugin file as well (repeatable); a file that fails to load "
                  "makes the command exit with 1")
      ->type_name("PATH");
  command
      .add_option("--config", options.config,
                  "Read this config file instead of searching BACKPLANE_CONFIG, "
                  "./backplane.toml, ~/.config/backplane/config.toml, "
                  "/etc/backplane/config.toml")
      ->type_name("FILE");
}

void add_device_option(CLI::App& command, PluginOptions& options, const std::string& what) {
  command
      .add_option("--device", options.device,
                  what +
                      ". A device selector (cuda:0, opencl:*, cuda,opencl,cpu, !level_zero); it "
                      "replaces BACKPLANE_DEVICE and devices.priority/default, so the plugins "
                      "of the backends it leaves out are not opened")
      ->type_name("SEL");
}

fs::path plugin_dir_next_to_program() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return (self.parent_path() / BP_CLI_RELATIVE_PLUGIN_DIR).lexically_normal();
}

LoadedRuntime load_plugins(const PluginOptions& options) {
  // The runtime registers its built-in plugins on first use: take their reports before
  // discovery adds to the list.
  LoadedRuntime result;
  for (PluginLoadReport& r : plugin_reports()) result.plugins.push_back({std::move(r), false});

  InitOptions init_options;
  init_options.config = command_config(options);
  init_options.plugins.assign(options.plugins.begin(), options.plugins.end());
  // After the config's folders (BACKPLANE_PLUGIN_PATH first among them), before the install
  // folder: the environment still overrides an install, and a relocated install finds its
  // own plugins.
  if (fs::path next = plugin_dir_next_to_program(); !next.empty())
    init_options.search_paths.push_back(std::move(next));
  init_options.warn = false;  // the subcommand reports every plugin itself

  std::set<fs::path> explicit_files;
  for (const std::string& p : options.plugins) explicit_files.insert(canonical_or_self(p));
  InitResult init_result = init(std::move(init_options));
  for (PluginLoadReport& r : init_result.plugins) {
    const bool is_explicit = explicit_files.contains(canonical_or_self(r.path));
    result.plugins.push_back({std::move(r), is_explicit});
  }
  result.config = std::move(init_result.config);
  return result;
}

}  // namespace bp::cli
