// Files the subcommands share: this program's own path (to start itself as a child process:
// conformance workers, `run`'s per-device children) and whole-file reads and writes of the
// reports they exchange.
#pragma once

#include <filesystem>
#include <string>

namespace bp::cli {

// This program's path (/proc/self/exe); throws bp::Error when it cannot be read.
std::filesystem::path self_program();

// The whole file, or "" when it cannot be read (a child that died before writing it).
std::string read_file(const std::filesystem::path& path);

// Replaces `path` with `text`; throws bp::Error naming `what` (e.g. "JSON report") and the
// path when the write fails.
void write_file(const std::string& path, const std::string& text, const std::string& what);

}  // namespace bp::cli
