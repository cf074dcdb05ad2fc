/* A plugin that must never be loaded, with a capability manifest (inspect_only.toml):
 * loading it aborts in a constructor, before bp_plugin_query could be called, and
 * bp_plugin_query aborts too. `backplane inspect` prints its manifest, which proves the
 * command reads the file and never loads it (tests/tools/test_inspect_command.cpp). */
#include <backplane/plugin.h>

#include <stdlib.h>

__attribute__((constructor)) static void refuse_to_be_loaded(void) {
  abort();
}

BP_EXPORT const bp_plugin_descriptor* bp_plugin_query(void) {
  abort();
}
