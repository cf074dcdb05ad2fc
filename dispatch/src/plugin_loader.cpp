// Loading a plugin from a shared library with Boost.DLL (header-only, std::filesystem):
// open by absolute path, look up the one entry symbol, register the descriptor. Discovery
// (search paths, BACKPLANE_PLUGIN_PATH, config) builds on this.
#include "runtime_impl.hpp"

#include <fmt/format.h>
#include <boost/dll/shared_library.hpp>

#include <dlfcn.h>

#include <memory>
#include <mutex>
#include <vector>

namespace bp {
namespace {

// Libraries stay open until exit: a plugin's function pointers and the memory it allocated
// may outlive its registration.
struct OpenLibraries {
  std::mutex mu;
  std::vector<std::unique_ptr<boost::dll::shared_library>> libraries;
};

OpenLibraries& open_libraries() {
  static auto* libs = new OpenLibraries;  // never destroyed: plugins may run at exit
  return *libs;
}

// Boost.DLL reports a failed load as a generic error code; the dynamic loader's own text
// ("invalid ELF header", "undefined symbol: x") is what a vendor needs, so ask it again.
std::string dlerror_text(const std::filesystem::path& path) {
  dlerror();  // clear
  if (void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    dlclose(handle);
    return "the library loads when retried";
  }
  const char* text = dlerror();
  return text ? text : "unknown dynamic loader error";
}

}  // namespace

PluginLoadReport load_plugin(const std::filesystem::path& path) {
  std::error_code fs_error;
  const std::filesystem::path full = std::filesystem::absolute(path, fs_error);
  const std::string where = full.string();
  if (fs_error || !std::filesystem::exists(full, fs_error))
    return {where, LoadStatus::Failed, "no such file"};

  auto library = std::make_unique<boost::dll::shared_library>();
  boost::dll::fs::error_code ec;  // std::error_code under BOOST_DLL_USE_STD_FS
  // rtld_now: unresolved symbols fail here, not at the first kernel call. rtld_local: two
  // plugins may define the same internal names.
  library->load(full, ec, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  if (ec)
    return {where, LoadStatus::Failed,
            fmt::format("not a loadable shared library: {}", dlerror_text(full))};
  if (!library->has(BP_PLUGIN_ENTRY_SYMBOL))
    return {where, LoadStatus::Failed,
            fmt::format("no entry symbol '{}': not a Backplane plugin (is the symbol exported "
                        "with BP_EXPORT and extern \"C\"?)",
                        BP_PLUGIN_ENTRY_SYMBOL)};
  auto query = library->get<const bp_plugin_descriptor*()>(BP_PLUGIN_ENTRY_SYMBOL);
  const bp_plugin_descriptor* descriptor = query();
  PluginLoadReport report = register_plugin(descriptor, where);
  std::lock_guard lock(open_libraries().mu);
  open_libraries().libraries.push_back(std::move(library));
  return report;
}

}  // namespace bp
