// What `backplane new-plugin` does to the template plugin (plugin-sdk/template, installed as
// <prefix>/share/backplane/plugin-template): the rules a new plugin's name must follow,
// where the template is found, and the renamed copy itself. Every form of the template's
// name is replaced, as the plugin guide's rename recipe does by hand: the backend and file
// names (template_device), the CMake option (TEMPLATE_DEVICE_...), the display name
// (Template device) and the comments (template device).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace bp::cli {

// Throws bp::Error (InvalidArgument) saying what is wrong with `name` as a plugin and
// backend name: not [a-z][a-z0-9_]*, a C++ keyword or reserved identifier (it becomes the
// plugin's namespace), or the name of one of Backplane's own backends (the plugin would be
// refused next to it).
void validate_plugin_name(std::string_view name);

// The template folders to try, in order: `explicit_dir` when given, the one next to this
// program (<bindir>/../share/backplane/plugin-template, so a moved install uses its own),
// the source tree this program was built from, and the configured install's.
std::vector<std::filesystem::path> template_candidates(const std::filesystem::path& explicit_dir);

// The first candidate that holds a template (a CMakeLists.txt and src/plugin.cpp); throws
// bp::Error naming every folder it tried when none does.
std::filesystem::path find_template(const std::filesystem::path& explicit_dir);

struct NewPlugin {
  std::filesystem::path dir;       // the folder made
  std::vector<std::string> files;  // its files, relative, sorted
};

// Copies `template_dir` (without build folders) into `dest`, which must not exist, with
// every form of the template's name replaced by `name` in file names and contents, and
// the README's links to the Backplane docs made absolute (they were relative to the
// template's own folder). The copy is made in a scratch folder beside `dest` and renamed
// into place at the end, so a failure leaves nothing behind. Throws bp::Error naming the
// path for an existing `dest`, an unreadable template or a failed write, and naming the
// file and line when the template holds a form of its name the rename does not know.
NewPlugin create_plugin(const std::filesystem::path& template_dir, std::string_view name,
                        const std::filesystem::path& dest);

}  // namespace bp::cli
