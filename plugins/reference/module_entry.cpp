// The reference backend's loadable build exports its descriptor under the name every
// plugin exports; the copy linked into the runtime must not (plugin.cpp, CMakeLists.txt).
#include <backplane/plugin.h>

extern "C" const bp_plugin_descriptor* bp_reference_plugin_query(void);

extern "C" BP_EXPORT const bp_plugin_descriptor* bp_plugin_query(void) {
  return bp_reference_plugin_query();
}
