// A GPU backend's device API and its start and stop (the CUDA and ROCm plugins build this
// same file; each one's entry point is its own plugin.cpp). Each device gets one stream of its own
// (non-blocking, created at init), which stands for the runtime's default stream: kernels and
// copies are queued on it in order. A host-to-device copy returns once its bytes are in pinned
// staging memory (the runtime may reuse the host memory right after the call); a device-to-host
// copy returns with the bytes in place. Every call selects its device first (the current device is
// per thread).
#include "compute.hpp"
#include "gpu_backend.hpp"
#include "staging.hpp"

#include <backplane/sdk/error.hpp>
#include <backplane/sdk/plugin.hpp>

#include <algorithm>
#include <cstring>
#include <string>

namespace bp::gpu {

const bp_host_api* g_host = nullptr;

bp_status fail(bp_status code, const std::string& message) {
  if (g_host) g_host->set_error(g_host->host, code, message.c_str());
  return code;
}

Device::Device() = default;
Device::~Device() = default;
Device::Device(Device&&) noexcept = default;

namespace {

Backend g_backend;

bp_status status_of(cudaError_t err, const std::string& what) {
  if (err == cudaSuccess) return BP_OK;
  (void)cudaGetLastError();
  return fail(err == cudaErrorMemoryAllocation ? BP_ERR_OUT_OF_MEMORY : BP_ERR_DEVICE,
              std::string(kBackend) + ": " + what + " failed: " + error_text(err));
}

// Selects device `index` for this thread into *out; an error (reported) when the backend has
// no such device or the runtime cannot select it.
bp_status select(int32_t index, Device** out) {
  if (index < 0 || static_cast<size_t>(index) >= g_backend.devices.size())
    return fail(BP_ERR_INVALID_ARGUMENT,
                std::string(kBackend) + ": no device " + std::to_string(index) + " (" +
                    std::to_string(g_backend.devices.size()) + " device(s))");
  Device& d = g_backend.devices[static_cast<size_t>(index)];
  if (bp_status s = status_of(cudaSetDevice(d.ordinal), "cudaSetDevice"); s != BP_OK) return s;
  *out = &d;
  return BP_OK;
}

cudaStream_t stream_of(const Device& d, void* stream) {
  return stream ? static_cast<cudaStream_t>(stream) : d.stream;
}

bp_status device_count(void*, int32_t* out_count, const char** out_reason) {
  *out_count = static_cast<int32_t>(g_backend.devices.size());
  if (out_reason)
    *out_reason = g_backend.devices.empty() ? g_backend.no_device_reason.c_str() : nullptr;
  return BP_OK;
}

bp_status device_properties(void*, int32_t index, bp_device_props* out) {
  Device* d = nullptr;
  if (bp_status s = select(index, &d); s != BP_OK) return s;
  bp_device_props props = d->props;
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) props.free_memory = free_bytes;
  const size_t size = std::min(out->struct_size, sizeof(bp_device_props));
  std::memcpy(out, &props, size);
  out->struct_size = size;
  return BP_OK;
}

bp_status device_alloc(void*, int32_t index, size_t bytes, size_t, void** out) {
  Device* d = nullptr;
  if (bp_status s = select(index, &d); s != BP_OK) return s;
  // cudaMalloc/hipMalloc align to at least 256 bytes, more than the runtime asks for.
  return status_of(cudaMalloc(out, bytes == 0 ? 1 : bytes),
                   "cudaMalloc of " + std::to_string(bytes) + " bytes");
}

bp_status device_free(void*, int32_t index, void* ptr) {
  Device* d = nullptr;
  if (bp_status s = select(index, &d); s != BP_OK) return s;
  return status_of(cudaFree(ptr), "cudaFree");
}

bp_status device_copy(void*, int32_t index, bp_copy_kind kind, void* dst, const void* src,
                      size_t bytes, void* stream) {
  Device* d = nullptr;
  if (bp_status s = select(index, &d); s != BP_OK) return s;
  if (bytes == 0) return BP_OK;
  const cudaStream_t st = stream_of(*d, stream);
  return sdk::guard(g_host, [&] {
    switch (kind) {
      case BP_COPY_HOST_TO_DEVICE:
        d->staging->to_device(dst, src, bytes, st);
        return;
      case BP_COPY_DEVICE_TO_HOST:
        d->staging->to_host(dst, src, bytes, st);
        return;
      case BP_COPY_DEVICE_TO_DEVICE:
        check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st),
              "cudaMemcpyAsync (device to device)");
        return;
      default:
        throw sdk::Error(BP_ERR_INVALID_ARGUMENT,
                         std::string(kBackend) + ": unknown copy kind " + std::to_string(kind));
    }
  });
}

bp_status device_stream_create(void*, int32_t index, void** out) {
  Device* d = nullptr;
  if (bp_status s = select(index, &d); s != BP_OK) return s;
  cudaStream_t stream = nullptr;
  if (bp_status s = status_of(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
                              "cudaStreamCreateWithFlags");
      s != BP_OK)
    return s;
  *out = stream;
  return BP_OK;
}

bp_status device_stream_destroy(void*, int32_t index, void* stream) {
  Device* d = nullptr;
  if (bp_status s = select(index, &d); s != BP_OK) return s;
  return status_of(cudaStreamDestroy(static_cast<cudaStream_t>(stream)), "cudaStreamDestroy");
}

bp_status device_synchronize(void*, int32_t index, void* stream) {
  Device* d = nullptr;
  if (bp_status s = select(index, &d); s != BP_OK) return s;
  return status_of(cudaStreamSynchronize(stream_of(*d, stream)), "cudaStreamSynchronize");
}

const bp_device_api kDeviceApi = {
    sizeof(bp_device_api), device_count, device_properties,    device_alloc,
    device_free,           device_copy,  device_stream_create, device_stream_destroy,
    device_synchronize,    nullptr};

// The stream, staging buffers and kernels of each usable device; a device whose stream or
// staging cannot be made is left out with its reason.
void prepare_devices() {
  const std::string kernel_dir = kernel_directory();
  std::string problems;
  std::vector<Device> ready;
  for (Device& d : g_backend.devices) {
    try {
      check(cudaSetDevice(d.ordinal), "cudaSetDevice");
      check(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking), "creating its stream");
      d.staging = std::make_unique<Staging>();
      ready.push_back(std::move(d));
    } catch (const sdk::Error& e) {
      problems += "; device " + std::to_string(d.ordinal) + ": " + e.what();
      if (d.stream) (void)cudaStreamDestroy(d.stream);
    }
  }
  g_backend.devices = std::move(ready);
  for (Device& d : g_backend.devices) d.compute = std::make_unique<Compute>(d, kernel_dir);
  if (g_backend.devices.empty() && !problems.empty())
    g_backend.no_device_reason = "no usable device" + problems;
}

}  // namespace

uint32_t start_backend(const sdk::Host& host) {
  g_host = host.api();
  discover(g_backend);
  prepare_devices();
  uint32_t backend = 0;
  if (bp_status s =
          host.api()->register_backend(host.api()->host, kBackend, &kDeviceApi, nullptr, &backend);
      s != BP_OK)
    throw sdk::Error::reported_by_host(s, std::string("register_backend(") + kBackend + ") failed");
  return backend;
}

clk::ComputeDevice* compute_device_of(int32_t index) {
  if (index < 0 || static_cast<size_t>(index) >= g_backend.devices.size()) return nullptr;
  return g_backend.devices[static_cast<size_t>(index)].compute.get();
}

void stop_backend() {
  for (Device& d : g_backend.devices) {
    (void)cudaSetDevice(d.ordinal);
    if (d.stream) (void)cudaStreamSynchronize(d.stream);
    d.compute.reset();
    d.staging.reset();
    if (d.stream) (void)cudaStreamDestroy(d.stream);
  }
  g_backend = Backend{};
  g_host = nullptr;
}

}  // namespace bp::gpu
