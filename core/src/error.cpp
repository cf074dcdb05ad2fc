// bp::Error support: names of the error codes and the out-of-line throw used by BP_CHECK,
// kept out of line so the check macro expands to a compare and a call.
#include "backplane/core/error.hpp"

#include <utility>

namespace bp {

std::string_view to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidArgument:
      return "InvalidArgument";
    case ErrorCode::Shape:
      return "Shape";
    case ErrorCode::Type:
      return "Type";
    case ErrorCode::Index:
      return "Index";
    case ErrorCode::Device:
      return "Device";
    case ErrorCode::NotImplemented:
      return "NotImplemented";
    case ErrorCode::OutOfMemory:
      return "OutOfMemory";
    case ErrorCode::Parse:
      return "Parse";
    case ErrorCode::Backend:
      return "Backend";
    case ErrorCode::Internal:
      return "Internal";
  }
  return "Unknown";
}

namespace detail {

void throw_error(ErrorCode code, std::string message) {
  throw Error(code, std::move(message));
}

}  // namespace detail
}  // namespace bp
