// The CUDA backend's entry point and device API. Each device gets one stream of its own
// (non-blocking, created at init), which stands for the runtime's default (NULL) stream:
// kernels and device-to-device copies are queued on it; copies from and to the host block
// until done (the runtime may reuse the host memory right after the call). Every call
// selects its device first (cudaSetDevice is per thread).
#include "cuda_backend.hpp"

#include <backplane/sdk/error.hpp>

#include <algorithm>
#include <cstring>
#include <string>

namespace bp::cuda {

const bp_host_api* g_host = nullptr;

bp_status fail(bp_status code, const std::string& message) {
  if (g_host) g_host->set_error(g_host->host, code, message.c_str());
  return code;
}

namespace {

Backend g_backend;
std::vector<cudaStream_t> g_streams;  // one per usable device

bp_status check(cudaError_t err, const std::string& what) {
  if (err == cudaSuccess) return BP_OK;
  cudaGetLastError();
  return fail(err == cudaErrorMemoryAllocation ? BP_ERR_OUT_OF_MEMORY : BP_ERR_DEVICE,
              "cuda: " + what + " failed: " + error_text(err));
}

// Selects device `index` for this thread; an error for an index the backend does not have.
bp_status select(int32_t index) {
  if (index < 0 || static_cast<size_t>(index) >= g_backend.devices.size())
    return fail(BP_ERR_INVALID_ARGUMENT, "cuda: no device " + std::to_string(index) + " (" +
                                             std::to_string(g_backend.devices.size()) +
                                             " device(s))");
  return check(cudaSetDevice(g_backend.devices[static_cast<size_t>(index)].ordinal),
               "cudaSetDevice");
}

cudaStream_t stream_of(int32_t index, void* stream) {
  return stream ? static_cast<cudaStream_t>(stream) : g_streams[static_cast<size_t>(index)];
}

bp_status device_count(void*, int32_t* out_count, const char** out_reason) {
  *out_count = static_cast<int32_t>(g_backend.devices.size());
  if (out_reason)
    *out_reason = g_backend.devices.empty() ? g_backend.no_device_reason.c_str() : nullptr;
  return BP_OK;
}

bp_status device_properties(void*, int32_t index, bp_device_props* out) {
  if (bp_status s = select(index); s != BP_OK) return s;
  bp_device_props props = g_backend.devices[static_cast<size_t>(index)].props;
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) props.free_memory = free_bytes;
  const size_t size = std::min(out->struct_size, sizeof(bp_device_props));
  std::memcpy(out, &props, size);
  out->struct_size = size;
  return BP_OK;
}

bp_status device_alloc(void*, int32_t index, size_t bytes, size_t, void** out) {
  if (bp_status s = select(index); s != BP_OK) return s;
  // cudaMalloc aligns to at least 256 bytes, more than the runtime asks for.
  return check(cudaMalloc(out, bytes == 0 ? 1 : bytes),
               "cudaMalloc of " + std::to_string(bytes) + " bytes");
}

bp_status device_free(void*, int32_t index, void* ptr) {
  if (bp_status s = select(index); s != BP_OK) return s;
  return check(cudaFree(ptr), "cudaFree");
}

bp_status device_copy(void*, int32_t index, bp_copy_kind kind, void* dst, const void* src,
                      size_t bytes, void* stream) {
  if (bp_status s = select(index); s != BP_OK) return s;
  if (bytes == 0) return BP_OK;
  const cudaStream_t st = stream_of(index, stream);
  switch (kind) {
    case BP_COPY_HOST_TO_DEVICE:
    case BP_COPY_DEVICE_TO_HOST: {
      const cudaMemcpyKind k =
          kind == BP_COPY_HOST_TO_DEVICE ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
      if (bp_status s = check(cudaMemcpyAsync(dst, src, bytes, k, st), "cudaMemcpyAsync");
          s != BP_OK)
        return s;
      return check(cudaStreamSynchronize(st), "cudaStreamSynchronize after a host copy");
    }
    case BP_COPY_DEVICE_TO_DEVICE:
      return check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st),
                   "cudaMemcpyAsync (device to device)");
    default:
      return fail(BP_ERR_INVALID_ARGUMENT, "cuda: unknown copy kind " + std::to_string(kind));
  }
}

bp_status device_stream_create(void*, int32_t index, void** out) {
  if (bp_status s = select(index); s != BP_OK) return s;
  cudaStream_t stream = nullptr;
  if (bp_status s = check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
                          "cudaStreamCreateWithFlags");
      s != BP_OK)
    return s;
  *out = stream;
  return BP_OK;
}

bp_status device_stream_destroy(void*, int32_t index, void* stream) {
  if (bp_status s = select(index); s != BP_OK) return s;
  return check(cudaStreamDestroy(static_cast<cudaStream_t>(stream)), "cudaStreamDestroy");
}

bp_status device_synchronize(void*, int32_t index, void* stream) {
  if (bp_status s = select(index); s != BP_OK) return s;
  return check(cudaStreamSynchronize(stream_of(index, stream)), "cudaStreamSynchronize");
}

const bp_device_api kDeviceApi = {
    sizeof(bp_device_api), device_count,         device_properties,     device_alloc,
    device_free,           device_copy,          device_stream_create, device_stream_destroy,
    device_synchronize,
};

bp_status init(const bp_host_api* host, const char*) {
  g_host = host;
  discover(g_backend);
  for (const Device& d : g_backend.devices) {
    cudaStream_t stream = nullptr;
    if (cudaSetDevice(d.ordinal) != cudaSuccess ||
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess)
      return check(cudaGetLastError(), "creating the stream of device " + std::to_string(d.ordinal));
    g_streams.push_back(stream);
  }
  uint32_t backend = 0;
  return host->register_backend(host->host, "cuda", &kDeviceApi, nullptr, &backend);
}

void shutdown() {
  for (size_t i = 0; i < g_streams.size(); ++i) {
    cudaSetDevice(g_backend.devices[i].ordinal);
    cudaStreamSynchronize(g_streams[i]);
    cudaStreamDestroy(g_streams[i]);
  }
  g_streams.clear();
  g_backend = Backend{};
  g_host = nullptr;
}

const bp_plugin_descriptor kDescriptor = {
    sizeof(bp_plugin_descriptor), BP_ABI_MAJOR, BP_ABI_MINOR, "cuda", "0.1.0", "Backplane",
    init,                         shutdown,
};

}  // namespace
}  // namespace bp::cuda

extern "C" BP_EXPORT const bp_plugin_descriptor* bp_plugin_query(void) {
  return &bp::cuda::kDescriptor;
}
