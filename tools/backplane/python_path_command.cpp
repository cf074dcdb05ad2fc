// `backplane python-path`: the folder holding the `backplane` Python package (the PyTorch
// bridge, backplane.torch; docs/pytorch.md), for `export PYTHONPATH=$(backplane
// python-path)`. An installed program prints its install's folder (found next to itself,
// so a moved install works too); a build-tree program prints the build's python/ folder.
// Fails, saying why, when the bridge was not built (no PyTorch at configure time).
#include "command.hpp"

#include <backplane/core/error.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <system_error>
#include <vector>

namespace bp::cli {
namespace fs = std::filesystem;
namespace {

bool holds_package(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "backplane" / "torch" / "__init__.py", ec);
}

fs::path find_python_dir() {
  std::vector<fs::path> candidates;
  std::error_code ec;
  if (const fs::path self = fs::read_symlink("/proc/self/exe", ec);
      !ec && *BP_CLI_RELATIVE_PYTHON_DIR)
    candidates.push_back((self.parent_path() / BP_CLI_RELATIVE_PYTHON_DIR).lexically_normal());
  if (*BP_CLI_BUILD_PYTHON_DIR) candidates.emplace_back(BP_CLI_BUILD_PYTHON_DIR);
  for (const fs::path& dir : candidates)
    if (holds_package(dir)) return dir;
  if (candidates.empty())
    throw Error(ErrorCode::NotImplemented,
                "python-path: this Backplane was built without the PyTorch bridge (CMake "
                "found no libtorch-dev, python3-torch or pybind11-dev, or BP_TORCH_BRIDGE was "
                "OFF; scripts/setup installs them)");
  std::vector<std::string> tried;
  for (const fs::path& dir : candidates) tried.push_back("'" + dir.string() + "'");
  throw Error(ErrorCode::NotImplemented,
              fmt::format("python-path: no backplane/torch package in {} (build the "
                          "backplane_torch_bridge target, or install)",
                          fmt::join(tried, ", ")));
}

}  // namespace

void add_python_path_command(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "python-path", "Print the folder of the backplane Python package (PYTHONPATH)");
  cmd->callback([&exit_code] {
    fmt::print("{}\n", find_python_dir().string());
    exit_code = kExitOk;
  });
}

}  // namespace bp::cli
