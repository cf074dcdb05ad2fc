// Backplane errors as PyTorch errors: a bp::Error thrown inside a kernel becomes a
// c10::Error with the same message, which PyTorch raises in Python as RuntimeError (and
// the process goes on).
#pragma once

#include <backplane/core/error.hpp>

#include <c10/util/Exception.h>

#include <utility>

namespace bp::torch_bridge {

[[noreturn]] inline void throw_torch_error(const Error& error) {
  TORCH_CHECK(false, error.what());
}

// Runs `body`, translating a bp::Error into c10::Error.
template <class Body>
decltype(auto) with_torch_errors(Body&& body) {
  try {
    return std::forward<Body>(body)();
  } catch (const Error& error) {
    throw_torch_error(error);
  }
}

}  // namespace bp::torch_bridge
