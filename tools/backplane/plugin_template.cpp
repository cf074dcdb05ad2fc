// The renamed copy of the template plugin behind `backplane new-plugin`
// (plugin_template.hpp).
#include "plugin_template.hpp"

#include "program_files.hpp"

#include <backplane/core/device.hpp>
#include <backplane/core/error.hpp>

#include <fmt/format.h>

#include <unistd.h>
#include <algorithm>
#include <array>
#include <cctype>
#include <regex>
#include <system_error>
#include <utility>

namespace bp::cli {
namespace fs = std::filesystem;
namespace {

// The template's name in every form it takes; nothing else in the template may say
// "template" (create_plugin checks it, so a template edit cannot leave its name behind).
constexpr std::string_view kName = "template_device";
constexpr std::string_view kUpperName = "TEMPLATE_DEVICE";
constexpr std::string_view kDisplayName = "Template device";
constexpr std::string_view kProseName = "template device";

// C++ keywords that fit [a-z][a-z0-9_]*: the name becomes the plugin's namespace.
constexpr std::array<std::string_view, 84> kKeywords = {
    "alignas",       "alignof",     "and",
    "and_eq",        "asm",         "auto",
    "bitand",        "bitor",       "bool",
    "break",         "case",        "catch",
    "char",          "char8_t",     "char16_t",
    "char32_t",      "class",       "compl",
    "concept",       "const",       "consteval",
    "constexpr",     "constinit",   "const_cast",
    "continue",      "co_await",    "co_return",
    "co_yield",      "decltype",    "default",
    "delete",        "do",          "double",
    "dynamic_cast",  "else",        "enum",
    "explicit",      "export",      "extern",
    "false",         "float",       "for",
    "friend",        "goto",        "if",
    "inline",        "int",         "long",
    "mutable",       "namespace",   "new",
    "noexcept",      "not",         "not_eq",
    "nullptr",       "operator",    "or",
    "or_eq",         "private",     "protected",
    "public",        "register",    "reinterpret_cast",
    "requires",      "return",      "short",
    "signed",        "sizeof",      "static",
    "static_assert", "static_cast", "struct",
    "switch",        "template",    "this",
    "thread_local",  "throw",       "true",
    "try",           "typedef",     "typeid",
    "typename",
};

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// Throws when `text` (the file `where` of the template) says "template" other than in one
// of the forms the rename replaces.
void check_forms(const std::string& text, const std::string& where) {
  std::string rest = text;
  for (std::string_view form : {kName, kUpperName, kDisplayName, kProseName})
    rest = replace_all(std::move(rest), form, "");
  const std::string lower = [&] {
    std::string s = rest;
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }();
  const size_t at = lower.find("template");
  if (at == std::string::npos) return;
  const auto line = 1 + std::count(rest.begin(), rest.begin() + static_cast<ptrdiff_t>(at), '\n');
  throw Error(
      ErrorCode::Internal,
      fmt::format("{}:{}: the template names itself in a form `backplane new-plugin` "
                  "does not rename ('{}'); rename it in the template as {}, {}, '{}' "
                  "or '{}'",
                  where, line, rest.substr(at, 8), kName, kUpperName, kDisplayName, kProseName));
}

std::string renamed(std::string text, std::string_view name) {
  text = replace_all(std::move(text), kName, name);
  text = replace_all(std::move(text), kUpperName, upper(name));
  text = replace_all(std::move(text), kDisplayName, name);
  return replace_all(std::move(text), kProseName, std::string(name) + " device");
}

// Relative links of a markdown file pointed into the Backplane docs next to the template;
// in the new folder they would point nowhere, so each one that resolves is made absolute.
std::string absolute_links(const std::string& text, const fs::path& template_dir) {
  static const std::regex link(R"(\]\(([^)#:\s]+)((#[^)\s]*)?)\))");
  std::string out;
  auto last = text.cbegin();
  for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
    const fs::path target = (*it)[1].str();
    std::error_code ec;
    const fs::path resolved = fs::weakly_canonical(template_dir / target, ec);
    out.append(last, (*it)[0].first);
    if (target.is_relative() && !ec && fs::exists(resolved))
      out += "](" + resolved.string() + (*it)[2].str() + ")";
    else
      out += (*it)[0].str();
    last = (*it)[0].second;
  }
  out.append(last, text.cend());
  return out;
}

bool holds_template(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "CMakeLists.txt", ec) &&
         fs::is_regular_file(dir / "src" / "plugin.cpp", ec);
}

// Copies one file, renamed, into `dest_root` (with its mode).
void copy_renamed(const fs::path& src, const fs::path& rel, const fs::path& dest_root,
                  std::string_view name) {
  std::string text = read_file(src);
  BP_CHECK(!text.empty() || fs::file_size(src) == 0, ErrorCode::InvalidArgument,
           "new-plugin: cannot read the template file '{}'", src.string());
  check_forms(text, src.string());
  text = renamed(std::move(text), name);
  if (src.extension() == ".md") text = absolute_links(text, src.parent_path());
  const fs::path out = dest_root / renamed(rel.string(), name);
  fs::create_directories(out.parent_path());
  write_file(out.string(), text, "new plugin's file");
  fs::permissions(out, fs::status(src).permissions());
}

}  // namespace

void validate_plugin_name(std::string_view name) {
  auto fail = [&](const std::string& why) {
    throw Error(ErrorCode::InvalidArgument,
                fmt::format("new-plugin: invalid name '{}': {}", name, why));
  };
  if (name.empty()) fail("the name is empty");
  if (!(name[0] >= 'a' && name[0] <= 'z'))
    fail("a name starts with a lowercase letter ([a-z][a-z0-9_]*)");
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      fail(
          fmt::format("character {} ('{}') is not a lowercase letter, digit or '_' "
                      "([a-z][a-z0-9_]*: the name is the backend's, the library's and the "
                      "C++ namespace's)",
                      i + 1, c));
  }
  if (name.find("__") != std::string_view::npos)
    fail("'__' is reserved in C++ identifiers (the name becomes the plugin's namespace)");
  if (std::find(kKeywords.begin(), kKeywords.end(), name) != kKeywords.end())
    fail("it is a C++ keyword (the name becomes the plugin's namespace)");
  for (const std::string& builtin : registered_device_type_names())
    if (builtin == name)
      fail(
          fmt::format("'{}' is a backend of Backplane itself; a plugin registering it would "
                      "be refused next to Backplane's own",
                      name));
}

std::vector<fs::path> template_candidates(const fs::path& explicit_dir) {
  if (!explicit_dir.empty()) return {explicit_dir};
  std::vector<fs::path> out;
  std::error_code ec;
  if (const fs::path self = fs::read_symlink("/proc/self/exe", ec); !ec)
    out.push_back((self.parent_path() / BP_CLI_RELATIVE_TEMPLATE_DIR).lexically_normal());
  out.emplace_back(BP_CLI_SOURCE_TEMPLATE_DIR);
  out.emplace_back(BP_CLI_INSTALL_TEMPLATE_DIR);
  return out;
}

fs::path find_template(const fs::path& explicit_dir) {
  const std::vector<fs::path> candidates = template_candidates(explicit_dir);
  std::vector<std::string> tried;
  for (const fs::path& dir : candidates) {
    if (holds_template(dir)) return dir;
    tried.push_back("'" + dir.string() + "'");
  }
  throw Error(
      ErrorCode::InvalidArgument,
      fmt::format("new-plugin: no plugin template (a folder with CMakeLists.txt and "
                  "src/plugin.cpp) in {}{}",
                  fmt::join(tried, ", "), explicit_dir.empty() ? "; pass --template DIR" : ""));
}

NewPlugin create_plugin(const fs::path& template_dir, std::string_view name, const fs::path& dest) {
  validate_plugin_name(name);
  std::error_code ec;
  BP_CHECK(!fs::exists(fs::symlink_status(dest, ec)), ErrorCode::InvalidArgument,
           "new-plugin: '{}' already exists; choose another folder with --dir DIR", dest.string());
  const fs::path parent = fs::absolute(dest).parent_path();
  fs::create_directories(parent, ec);
  BP_CHECK(!ec, ErrorCode::InvalidArgument, "new-plugin: cannot create the folder '{}': {}",
           parent.string(), ec.message());
  const fs::path scratch =
      parent / fmt::format(".{}.new-plugin-{}", fs::absolute(dest).filename().string(), getpid());
  fs::remove_all(scratch, ec);

  NewPlugin result{dest, {}};
  try {
    fs::create_directory(scratch);
    for (auto it = fs::recursive_directory_iterator(template_dir);
         it != fs::recursive_directory_iterator(); ++it) {
      if (it->is_directory() && it->path().filename() == "build") {
        it.disable_recursion_pending();  // a build of the template, not the template
        continue;
      }
      if (!it->is_regular_file()) continue;
      const fs::path rel = fs::relative(it->path(), template_dir);
      copy_renamed(it->path(), rel, scratch, name);
      result.files.push_back(renamed(rel.string(), name));
    }
    fs::rename(scratch, dest);
  } catch (const Error&) {
    fs::remove_all(scratch, ec);
    throw;
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(scratch, ec);
    throw Error(ErrorCode::InvalidArgument,
                fmt::format("new-plugin: cannot create '{}' from the template '{}': {}",
                            dest.string(), template_dir.string(), e.what()));
  }
  std::sort(result.files.begin(), result.files.end());
  return result;
}

}  // namespace bp::cli
