// `backplane new-plugin NAME [--dir DIR] [--template DIR]`: a new out-of-tree plugin folder
// from the template plugin, renamed throughout (plugin_template.hpp), ready to build
// against this install: six f32 kernels (copy_, fill_, add, mul, relu, sum), the check
// program, and an empty conformance expectations file. docs/cli.md documents it.
//
// Exit code: 0; 1 for a bad name, an existing folder or a missing template (one line on
// stderr naming what and where).
#include "command.hpp"
#include "plugin_template.hpp"

#include <backplane/core/error.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>

namespace bp::cli {
namespace {
namespace fs = std::filesystem;

struct NewPluginOptions {
  std::string name;
  std::string dir;           // "" = ./NAME
  std::string template_dir;  // "" = search (plugin_template.hpp)
};

// The install prefix a template folder belongs to (<prefix>/share/backplane/plugin-template),
// or "" for a template outside an install (the source tree's).
std::string prefix_of(const fs::path& template_dir) {
  const fs::path dir = fs::absolute(template_dir).lexically_normal();
  const fs::path share = dir.parent_path().parent_path();
  if (dir.filename() != "plugin-template" || share.filename() != "share") return "";
  return share.parent_path().string();
}

int run_new_plugin(const NewPluginOptions& options) {
  try {
    validate_plugin_name(options.name);
    const fs::path dest = options.dir.empty() ? fs::path(options.name) : fs::path(options.dir);
    const fs::path from = find_template(options.template_dir);
    const NewPlugin made = create_plugin(from, options.name, dest);
    fmt::print("created {}/ from the template {} (backend {}):\n", made.dir.string(), from.string(),
               options.name);
    for (const std::string& file : made.files) fmt::print("  {}\n", file);
    const std::string prefix = prefix_of(from);
    fmt::print(
        "\nbuild it and run its tests (the check against the reference backend, backplane "
        "info, conformance):\n"
        "  cmake -S {0} -B {0}/build -DCMAKE_PREFIX_PATH={1}\n"
        "  cmake --build {0}/build && ctest --test-dir {0}/build --output-on-failure\n",
        made.dir.string(), prefix.empty() ? "<Backplane install prefix>" : prefix);
    return kExitOk;
  } catch (const Error& e) {
    fmt::print(stderr, "backplane: error: {}\n", e.what());
    return kExitFailure;
  }
}

}  // namespace

void add_new_plugin_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<NewPluginOptions>();
  CLI::App* command = app.add_subcommand(
      "new-plugin",
      "Create an out-of-tree plugin folder from the template plugin, renamed throughout");
  command
      ->add_option("NAME", options->name,
                   "The backend's name, [a-z][a-z0-9_]* (also the library's, "
                   "libbackplane_plugin_NAME.so, and the C++ namespace's)")
      ->required();
  command->add_option("--dir", options->dir,
                      "The folder to create (it must not exist; default: ./NAME)");
  command->add_option("--template", options->template_dir,
                      "The template folder to copy (default: the install's "
                      "share/backplane/plugin-template next to this program, else the source "
                      "tree's plugin-sdk/template)");
  command->footer(
      "The folder holds CMakeLists.txt, src/ (the plugin: copy_, fill_.Scalar, add.Tensor, "
      "mul.Tensor, relu, sum.dim_IntList in f32), test/ (a check against the reference "
      "backend, backplane info, the conformance suite) and an empty expectations.toml.\n"
      "Exit status: 0; 1 for an invalid name, an existing folder or no template found; 2 for "
      "a bad command line.\n");
  command->callback([options, &exit_code] { exit_code = run_new_plugin(*options); });
}

}  // namespace bp::cli
