// bp::Error, the one exception type of the runtime, and the BP_CHECK macro.
// Every message names what was wrong and where: the op, the argument, the value, the device.
// Thread-safe (plain values).
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace bp {

enum class ErrorCode {
  InvalidArgument,  // a value out of its domain: bad dim, bad option string, negative size
  Shape,            // incompatible shapes (broadcasting, matmul, cat)
  Type,             // unsupported or mismatched dtype
  Index,            // an index value out of range
  Device,           // mixed devices, unknown device, device failure
  NotImplemented,   // no kernel for this op/device/dtype
  OutOfMemory,
  Parse,     // schema, selector or config text that does not parse
  Backend,   // a plugin returned an error
  Internal,  // a bug in Backplane
};

std::string_view to_string(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

namespace detail {
[[noreturn]] void throw_error(ErrorCode code, std::string message);
}  // namespace detail

}  // namespace bp

// BP_CHECK(cond, ErrorCode::X, "fmt {}", args...): throws bp::Error when cond is false.
// The message is only formatted on failure.
#define BP_CHECK(cond, code, ...)                                        \
  do {                                                                   \
    if (!(cond)) [[unlikely]]                                            \
      ::bp::detail::throw_error(::bp::code, ::fmt::format(__VA_ARGS__)); \
  } while (0)

#define BP_FAIL(code, ...) ::bp::detail::throw_error(::bp::code, ::fmt::format(__VA_ARGS__))
