// Where the SPIR-V modules are: the build writes them to level_zero_kernels/ beside the
// plugin, and the install puts them beside the installed plugin in the same relative place,
// so the plugin finds them from its own file (dladdr), wherever the tree was copied to.
#include "level_zero.hpp"

#include <backplane/sdk/error.hpp>

#include <dlfcn.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

namespace bp::level_zero {

namespace {
// An object of this plugin: dladdr names the file that holds it.
const char kInThisPlugin = 0;
}  // namespace

std::string kernel_directory() {
  Dl_info info{};
  if (dladdr(&kInThisPlugin, &info) == 0 || info.dli_fname == nullptr) return "level_zero_kernels";
  return (std::filesystem::path(info.dli_fname).parent_path() / "level_zero_kernels").string();
}

std::string kernel_file(const std::string& dir, const std::string& program,
                        const std::string& variant, bool fp64) {
  return dir + "/" + program + "." + variant + (fp64 ? ".fp64" : "") + ".spv";
}

bool has_kernel_files(const std::string& dir) {
  std::error_code error;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end;
       it.increment(error)) {
    if (it->path().extension() == ".spv") return true;
  }
  return false;
}

std::vector<uint8_t> read_kernel_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw sdk::Error(BP_ERR_UNSUPPORTED,
                     "level_zero: no SPIR-V module " + path +
                         " (the plugin was built without clang-14, llvm-spirv-14 and spirv-val, "
                         "or its level_zero_kernels folder was not installed beside it)");
  std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (bytes.empty())
    throw sdk::Error(BP_ERR_DEVICE, "level_zero: SPIR-V module " + path + " is empty");
  return bytes;
}

}  // namespace bp::level_zero
