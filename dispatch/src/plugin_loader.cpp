// Loading a plugin from a shared library with Boost.DLL (header-only, std::filesystem):
// open by absolute path, look up the one entry symbol, register the descriptor, and the
// one-line warning for a plugin that is refused or fails. Discovery (search paths,
// BACKPLANE_PLUGIN_PATH, config) builds on this.
#include "runtime_impl.hpp"

#include <fmt/format.h>
#include <boost/dll/shared_library.hpp>

#include <dlfcn.h>
#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>
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

// glibc's dlopen maps a library's segments as its program headers describe them and then
// touches them: for a truncated file (a copy cut short, a full disk) that is a SIGBUS in the
// host, not an error. So before dlopen, check that every segment of a native ELF file lies
// inside the file. Anything else (text, another ELF class, a file shorter than its headers)
// is left to dlopen, which reports it safely. Returns "" when the file may be opened.
std::string truncated_elf_reason(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  Elf64_Ehdr header{};
  if (!in || ec || !in.read(reinterpret_cast<char*>(&header), sizeof header)) return {};
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_phentsize != sizeof(Elf64_Phdr))
    return {};
  const uint64_t headers_end = header.e_phoff + uint64_t{header.e_phnum} * sizeof(Elf64_Phdr);
  if (headers_end > size)
    return fmt::format(
        "truncated ELF file: its program headers end at byte {} but the file has "
        "{} bytes",
        headers_end, size);
  in.seekg(static_cast<std::streamoff>(header.e_phoff));
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    if (!in.read(reinterpret_cast<char*>(&segment), sizeof segment)) return {};
    if (segment.p_type != PT_LOAD && segment.p_type != PT_DYNAMIC) continue;
    if (segment.p_offset + segment.p_filesz > size)
      return fmt::format(
          "truncated ELF file: segment {} ends at byte {} but the file has {} "
          "bytes",
          i, segment.p_offset + segment.p_filesz, size);
  }
  return {};
}

}  // namespace

namespace detail {

PluginLoadReport skipped_plugin(const std::filesystem::path& path, std::string reason) {
  std::error_code ec;
  PluginLoadReport r;
  r.path = std::filesystem::absolute(path, ec).string();
  r.plugin = plugin_name_from_file(path).value_or(r.path);
  r.status = LoadStatus::Skipped;
  r.message = std::move(reason);
  Runtime::get().record(r);
  return r;
}

PluginLoadReport open_plugin(const std::filesystem::path& path, const Config* config) {
  Runtime::get().refuse_in_init("load_plugin");  // before the library is opened
  std::error_code fs_error;
  const std::filesystem::path full = std::filesystem::absolute(path, fs_error);
  const std::string where = full.string();
  // A candidate that never reaches register_plugin is still recorded, so that
  // plugin_reports() lists every one.
  auto failed = [&](std::string message) {
    PluginLoadReport r;
    r.plugin = where;
    r.status = LoadStatus::Failed;
    r.message = std::move(message);
    r.path = where;
    Runtime::get().record(r);
    return r;
  };
  if (fs_error || !std::filesystem::exists(full, fs_error)) return failed("no such file");

  if (std::string reason = truncated_elf_reason(full); !reason.empty())
    return failed("not a loadable shared library: " + reason);

  auto library = std::make_unique<boost::dll::shared_library>();
  boost::dll::fs::error_code ec;  // std::error_code under BOOST_DLL_USE_STD_FS
  // rtld_now: unresolved symbols fail here, not at the first kernel call. rtld_local: two
  // plugins may define the same internal names.
  library->load(full, ec, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  if (ec) return failed(fmt::format("not a loadable shared library: {}", dlerror_text(full)));
  if (!library->has(BP_PLUGIN_ENTRY_SYMBOL))
    return failed(
        fmt::format("no entry symbol '{}': not a Backplane plugin (is the symbol "
                    "exported with BP_EXPORT and extern \"C\"?)",
                    BP_PLUGIN_ENTRY_SYMBOL));
  auto query = library->get<const bp_plugin_descriptor*()>(BP_PLUGIN_ENTRY_SYMBOL);
  const bp_plugin_descriptor* descriptor = query();
  PluginLoadReport report = Runtime::get().add_plugin(descriptor, where, where, config);
  std::lock_guard lock(open_libraries().mu);
  open_libraries().libraries.push_back(std::move(library));
  return report;
}

void warn_if_unusable(const PluginLoadReport& report) {
  if (report.status != LoadStatus::Refused && report.status != LoadStatus::Failed) return;
  // Exactly one line, whatever the plugin or the dynamic loader wrote.
  std::string message = report.message;
  std::replace_if(
      message.begin(), message.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  const bool named = !report.path.empty() && report.plugin != report.path;
  fmt::print(stderr, "backplane: warning: plugin {}{}{}{} {}: {}\n", report.plugin,
             named ? " (" : "", named ? report.path : "", named ? ")" : "",
             report.status == LoadStatus::Refused ? "was refused" : "failed to load", message);
}

}  // namespace detail

PluginLoadReport load_plugin(const std::filesystem::path& path, const LoadOptions& options) {
  PluginLoadReport report = detail::open_plugin(path);
  if (options.warn) detail::warn_if_unusable(report);
  return report;
}

}  // namespace bp
