// Errors for plugin authors: throw sdk::Error (a status code and a message) anywhere in a
// kernel or device function written with the SDK; the SDK's wrappers catch it at the C
// boundary, report the message through host->set_error and return the code. No exception
// ever crosses into the runtime. Header-only.
#pragma once

#include <backplane/plugin.h>

#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace bp::sdk {

class Error : public std::runtime_error {
 public:
  Error(bp_status code, const std::string& message) : std::runtime_error(message), code_(code) {}
  bp_status code() const noexcept { return code_; }

  // An error whose message the host already holds (a failed host call such as
  // register_kernel sets it); the boundary wrapper then returns the code without
  // overwriting that more precise message.
  static Error reported_by_host(bp_status code, const std::string& what) {
    Error e(code, what);
    e.host_has_message_ = true;
    return e;
  }
  bool host_has_message() const noexcept { return host_has_message_; }

 private:
  bp_status code_;
  bool host_has_message_ = false;
};

// Throws Error(code, message) unless `condition` holds:
//   sdk::check(dim < t.dim(), BP_ERR_INVALID_ARGUMENT, "gather: dim out of range");
inline void check(bool condition, bp_status code, std::string_view message) {
  if (!condition) throw Error(code, std::string(message));
}

// Runs `body` (returning void or bp_status) at the C boundary: exceptions become a status
// and a message reported through `host` (which may be null before init). Never throws.
template <typename Body>
bp_status guard(const bp_host_api* host, Body&& body) noexcept {
  auto report = [host](bp_status code, const char* message) {
    if (host && host->set_error) host->set_error(host->host, code, message);
    return code;
  };
  try {
    if constexpr (std::is_void_v<std::invoke_result_t<Body&>>) {
      body();
      return BP_OK;
    } else {
      return static_cast<bp_status>(body());
    }
  } catch (const Error& e) {
    if (e.host_has_message()) return e.code();
    return report(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return report(BP_ERR_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception& e) {
    return report(BP_ERR_INTERNAL, e.what());
  } catch (...) {
    return report(BP_ERR_INTERNAL, "unknown C++ exception");
  }
}

}  // namespace bp::sdk
