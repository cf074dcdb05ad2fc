// Shared by the libFuzzer targets in tests/fuzz/: how a target reports a bug it detects
// itself (a broken invariant rather than a crash). libFuzzer treats an abort() as a crash
// and saves the input, so a failed check prints what broke and aborts.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

// FUZZ_CHECK(cond, message): aborts with the message (a std::string or C string) when
// `cond` is false. The message is built only on failure.
#define FUZZ_CHECK(cond, message)                                                               \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      std::fprintf(stderr, "fuzz check failed at %s:%d: %s\n  %s\n", __FILE__, __LINE__, #cond, \
                   std::string(message).c_str());                                               \
      std::abort();                                                                             \
    }                                                                                           \
  } while (0)
