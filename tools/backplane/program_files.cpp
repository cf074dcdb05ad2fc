// Shared file helpers of the `backplane` subcommands (program_files.hpp).
#include "program_files.hpp"

#include <backplane/core/error.hpp>

#include <fstream>
#include <sstream>
#include <system_error>

namespace bp::cli {
namespace fs = std::filesystem;

fs::path self_program() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  BP_CHECK(!ec, ErrorCode::Internal, "cannot find this program's path (/proc/self/exe): {}",
           ec.message());
  return self;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

nlohmann::json read_json_file(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  BP_CHECK(in.good(), ErrorCode::InvalidArgument, "{}: cannot read '{}'", what, path);
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  BP_CHECK(!j.is_discarded(), ErrorCode::Parse, "{}: '{}' is not valid JSON", what, path);
  return j;
}

void write_file(const std::string& path, const std::string& text, const std::string& what) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  BP_CHECK(out.good(), ErrorCode::InvalidArgument, "cannot write the {} to '{}'", what, path);
}

}  // namespace bp::cli
