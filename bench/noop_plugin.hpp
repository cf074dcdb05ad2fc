// A plugin whose add.Tensor kernel and its dense entry do nothing, registered in-process by
// the dispatch benchmark (bench/add_one_element.cpp, device "noop:0"): bp::add_out on it
// measures the full call path (typed API, the fast path's checks, dispatch, the C ABI call of
// the dense entry, which a contiguous call takes) with no kernel work, the figure issue 8 sets
// against PyTorch's c10 dispatcher calling a no-op op.
// Host memory from malloc; one device. Only for benchmarks: it computes nothing.
#pragma once

#include <backplane/plugin.h>

#include <cstdlib>
#include <cstring>

namespace bp::bench {

// The plugin's functions.
struct NoopPlugin {
  static bp_status device_count(void*, int32_t* n, const char** reason) {
    *n = 1;
    if (reason) *reason = nullptr;
    return BP_OK;
  }
  static bp_status device_properties(void*, int32_t, bp_device_props* p) {
    std::strncpy(p->name, "no-op benchmark device", sizeof p->name - 1);
    p->flags = BP_DEVICE_HOST_ACCESSIBLE;
    p->dtypes = BP_DTYPES_ALL;
    p->total_memory = p->free_memory = size_t{1} << 30;
    return BP_OK;
  }
  static bp_status alloc(void*, int32_t, size_t bytes, size_t alignment, void** out) {
    // aligned_alloc wants a size that is a multiple of the alignment.
    const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
    *out = std::aligned_alloc(alignment, rounded ? rounded : alignment);
    return *out ? BP_OK : BP_ERR_OUT_OF_MEMORY;
  }
  static bp_status release(void*, int32_t, void* p) {
    std::free(p);
    return BP_OK;
  }
  static bp_status copy(void*, int32_t, bp_copy_kind, void* dst, const void* src, size_t n, void*) {
    std::memmove(dst, src, n);
    return BP_OK;
  }
  static bp_status noop_kernel(const bp_call*) { return BP_OK; }
  static bp_status noop_dense(const bp_dense_call*) { return BP_OK; }
  static bp_status init(const bp_host_api* host, const char*) {
    static const bp_device_api api = {sizeof(bp_device_api),
                                      device_count,
                                      device_properties,
                                      alloc,
                                      release,
                                      copy,
                                      nullptr,
                                      nullptr,
                                      nullptr,
                                      nullptr};
    uint32_t id = 0;
    bp_status s = host->register_backend(host->host, "noop", &api, nullptr, &id);
    if (s != BP_OK) return s;
    s = host->register_kernel(host->host, id, "add.Tensor", BP_DTYPES_ALL, noop_kernel, nullptr);
    if (s != BP_OK) return s;
    s = host->register_dense_kernel(host->host, id, "add.Tensor", BP_DTYPES_ALL, noop_dense,
                                    nullptr);
    if (s != BP_OK) return s;
    // bp::full fills its inputs; what they hold does not matter to a kernel that reads none.
    return host->register_kernel(host->host, id, "fill_.Scalar", BP_DTYPES_ALL, noop_kernel,
                                 nullptr);
  }
  static void shutdown() {}
};

inline const bp_plugin_descriptor* noop_plugin_descriptor() {
  static const bp_plugin_descriptor descriptor = {
      sizeof(bp_plugin_descriptor), BP_ABI_MAJOR,     BP_ABI_MINOR,        "noop", "1.0",
      "Backplane benchmarks",       NoopPlugin::init, NoopPlugin::shutdown};
  return &descriptor;
}

}  // namespace bp::bench
