// Files the subcommands share: this program's own path (to start itself as a child process:
// conformance workers, `run`'s per-device children) and whole-file reads and writes of the
// reports they exchange, JSON included.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <string_view>

namespace bp::cli {

// This program's path (/proc/self/exe); throws bp::Error when it cannot be read.
std::filesystem::path self_program();

// The whole file, or "" when it cannot be read (a child that died before writing it).
std::string read_file(const std::filesystem::path& path);

// A JSON file another run wrote (a report, a certificate); throws bp::Error "<what>: cannot
// read 'path'" or "<what>: 'path' is not valid JSON".
nlohmann::json read_json_file(const std::string& path, std::string_view what);

// Replaces `path` with `text`; throws bp::Error naming `what` (e.g. "JSON report") and the
// path when the write fails.
void write_file(const std::string& path, const std::string& text, const std::string& what);

}  // namespace bp::cli
