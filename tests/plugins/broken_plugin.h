/* Shared pieces of the broken-plugin fixtures in this folder. Each fixture is one tiny
 * plugin library, written in C against plugin.h alone (as a vendor would), that breaks one
 * rule of the ABI; tests/dispatch/test_broken_plugins.cpp checks the documented report of
 * each. This header gives them a working host-memory device ("one device, malloc"), so each
 * fixture differs from a good plugin only in the part it breaks. */
#ifndef BP_TESTS_BROKEN_PLUGIN_H
#define BP_TESTS_BROKEN_PLUGIN_H

#include <backplane/plugin.h>

#include <stdlib.h>
#include <string.h>

static inline bp_status fixture_device_count(void* ctx, int32_t* out_count,
                                             const char** out_reason) {
  (void)ctx;
  *out_count = 1;
  if (out_reason) *out_reason = NULL;
  return BP_OK;
}

static inline bp_status fixture_device_properties(void* ctx, int32_t index, bp_device_props* out) {
  (void)ctx;
  (void)index;
  strncpy(out->name, "broken-plugin fixture device", sizeof out->name - 1);
  out->flags = BP_DEVICE_HOST_ACCESSIBLE;
  out->dtypes = BP_DTYPES_ALL;
  out->total_memory = 1u << 20;
  return BP_OK;
}

static inline bp_status fixture_alloc(void* ctx, int32_t index, size_t bytes, size_t alignment,
                                      void** out) {
  (void)ctx;
  (void)index;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) return BP_ERR_INVALID_ARGUMENT;
  /* aligned_alloc wants a size that is a multiple of the alignment. */
  const size_t size = bytes == 0 ? alignment : (bytes + alignment - 1) / alignment * alignment;
  *out = aligned_alloc(alignment, size);
  return *out ? BP_OK : BP_ERR_OUT_OF_MEMORY;
}

static inline bp_status fixture_free(void* ctx, int32_t index, void* ptr) {
  (void)ctx;
  (void)index;
  free(ptr);
  return BP_OK;
}

static inline bp_status fixture_copy(void* ctx, int32_t index, bp_copy_kind kind, void* dst,
                                     const void* src, size_t bytes, void* stream) {
  (void)ctx;
  (void)index;
  (void)kind;
  (void)stream;
  memmove(dst, src, bytes);
  return BP_OK;
}

/* A complete device API; fixtures copy it and break one slot where that is the point. */
#define FIXTURE_DEVICE_API                                                                 \
  {                                                                                        \
    sizeof(bp_device_api), fixture_device_count, fixture_device_properties, fixture_alloc, \
        fixture_free, fixture_copy, NULL, NULL, NULL, NULL                                 \
  }

/* A descriptor of ABI BP_ABI_MAJOR.BP_ABI_MINOR named `name` with `init` and no shutdown,
 * and the entry point returning it. */
#define FIXTURE_PLUGIN(name, init)                                                      \
  static const bp_plugin_descriptor fixture_descriptor = {sizeof(bp_plugin_descriptor), \
                                                          BP_ABI_MAJOR,                 \
                                                          BP_ABI_MINOR,                 \
                                                          name,                         \
                                                          "0.0.1",                      \
                                                          "Backplane tests",            \
                                                          init,                         \
                                                          NULL};                        \
  BP_EXPORT const bp_plugin_descriptor* bp_plugin_query(void) {                         \
    return &fixture_descriptor;                                                         \
  }

#endif /* BP_TESTS_BROKEN_PLUGIN_H */
