// A C++ plugin that breaks the ABI: it lets an exception escape its init (a C function).
// That is undefined behaviour; this fixture records what the runtime does with a plugin
// built by the same toolchain against the shared libstdc++ (docs/dispatch.md): the host's
// catch around init receives it and fails the plugin with the exception's text.
#include <backplane/plugin.h>

#include <stdexcept>

namespace {

bp_status init(const bp_host_api*, const char*) {
  throw std::runtime_error("init_throws: escaped from init");
}

const bp_plugin_descriptor descriptor = {sizeof(bp_plugin_descriptor),
                                         BP_ABI_MAJOR,
                                         BP_ABI_MINOR,
                                         "init_throws",
                                         "0.0.1",
                                         "Backplane tests",
                                         init,
                                         nullptr};

}  // namespace

extern "C" BP_EXPORT const bp_plugin_descriptor* bp_plugin_query(void) {
  return &descriptor;
}
