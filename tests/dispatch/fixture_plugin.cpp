// The in-test plugin described in fixture_plugin.hpp. Like a real plugin it talks to the
// runtime only through plugin.h.
#include "fixture_plugin.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace bp::testing {
namespace {

const bp_host_api* g_host = nullptr;
TestPluginMode g_mode = TestPluginMode::Normal;

TestPluginState g_state;
std::mutex g_record_mu;  // guards g_state.last_add_call
// Between a successful init and shutdown. Every device function and kernel checks it: the
// ABI promises no call after shutdown, and the concurrency tests count any that come.
std::atomic<bool> g_live{false};
bool called_while_down() {
  if (g_live.load()) return false;
  g_state.calls_after_shutdown++;
  return true;
}
// The options text init received: the device's name shows it, so a test can see that the
// config's [backends.testdev] reached the plugin.
char g_options[40] = "";

bp_status device_count(void*, int32_t* n, const char** reason) {
  *n = g_mode == TestPluginMode::NoDevices ? 0 : 1;
  if (reason)
    *reason = g_mode == TestPluginMode::NoDevices ? "test: no hardware attached" : nullptr;
  return BP_OK;
}
bp_status device_properties(void*, int32_t, bp_device_props* p) {
  if (g_options[0])
    std::snprintf(p->name, sizeof p->name, "test device (options: %s)", g_options);
  else
    std::strncpy(p->name, "test device", sizeof p->name - 1);
  p->flags = BP_DEVICE_HOST_ACCESSIBLE;
  p->dtypes = BP_DTYPES_ALL;
  // ABI 1.1; written only where the caller's struct has the member.
  if (p->struct_size >= offsetof(bp_device_props, architecture) + sizeof p->architecture)
    std::strncpy(p->architecture, "testarch", sizeof p->architecture - 1);
  const size_t budget = g_state.budget.load();
  p->total_memory = budget ? budget : 1 << 20;
  p->free_memory = budget ? budget - std::min(budget, g_state.bytes_in_use.load()) : 0;
  return BP_OK;
}
// Each block keeps its size in a header in front of it, for the budget.
constexpr size_t kHeader = 16;
bp_status alloc(void*, int32_t, size_t bytes, size_t, void** out) {
  if (called_while_down()) return BP_ERR_INTERNAL;
  const size_t budget = g_state.budget.load();
  if (budget && g_state.bytes_in_use.load() + bytes > budget) {
    char message[128];
    std::snprintf(message, sizeof message, "test_dev: %zu bytes asked, %zu of %zu in use", bytes,
                  g_state.bytes_in_use.load(), budget);
    g_host->set_error(g_host->host, BP_ERR_OUT_OF_MEMORY, message);
    return BP_ERR_OUT_OF_MEMORY;
  }
  auto* block = static_cast<char*>(std::malloc(kHeader + bytes));
  if (!block) return BP_ERR_OUT_OF_MEMORY;
  std::memcpy(block, &bytes, sizeof bytes);
  g_state.bytes_in_use += bytes;
  g_state.allocs++;
  *out = block + kHeader;
  return BP_OK;
}
bp_status release(void*, int32_t, void* p) {
  if (called_while_down()) return BP_ERR_INTERNAL;
  if (!p) return BP_OK;
  char* block = static_cast<char*>(p) - kHeader;
  size_t bytes = 0;
  std::memcpy(&bytes, block, sizeof bytes);
  g_state.bytes_in_use -= bytes;
  g_state.frees++;
  std::free(block);
  return BP_OK;
}
bp_status synchronize(void*, int32_t, void*) {
  if (called_while_down()) return BP_ERR_INTERNAL;
  g_state.synchronizes++;
  return BP_OK;
}
bp_status copy(void*, int32_t, bp_copy_kind, void* dst, const void* src, size_t n, void*) {
  if (called_while_down()) return BP_ERR_INTERNAL;
  std::memmove(dst, src, n);
  return BP_OK;
}
// ABI 1.2: one attribute, so the tests see the host ask for it and pass it through.
bp_status attributes(void*, int32_t, char* out, size_t capacity) {
  if (called_while_down()) return BP_ERR_INTERNAL;
  if (g_mode == TestPluginMode::AttributesFail) {
    g_host->set_error(g_host->host, BP_ERR_DEVICE, "test: the attributes are unreadable");
    return BP_ERR_DEVICE;
  }
  std::snprintf(out, capacity, "fixture=testdev  flag  level=2");
  return BP_OK;
}
const bp_device_api kApi = {
    sizeof(bp_device_api), device_count, device_properties, alloc, release, copy, nullptr, nullptr,
    synchronize,           attributes};
// As a plugin built against ABI 1.1 passes it: the table ends before device_attributes.
const bp_device_api kApiV1_1 = [] {
  bp_device_api api = kApi;
  api.struct_size = offsetof(bp_device_api, device_attributes);
  return api;
}();

// out = self + alpha * other over f32; inputs are already expanded to out's shape.
float* element(const bp_tensor* t, const int64_t* idx) {
  int64_t off = 0;
  for (int32_t d = 0; d < t->ndim; ++d) off += idx[d] * t->strides[d];
  return reinterpret_cast<float*>(static_cast<char*>(t->data) + t->byte_offset) + off;
}

void describe_tensor(std::string& text, const bp_tensor* t, bool with_address) {
  text += " T(dtype " + std::to_string(t->dtype) + ", dev " + std::to_string(t->device_type) + ":" +
          std::to_string(t->device_index) + ", shape";
  for (int32_t d = 0; d < t->ndim; ++d) text += " " + std::to_string(t->shape[d]);
  text += ", strides";
  for (int32_t d = 0; d < t->ndim; ++d) text += " " + std::to_string(t->strides[d]);
  text += ", offset " + std::to_string(t->byte_offset);
  if (with_address) text += ", data " + std::to_string(reinterpret_cast<uintptr_t>(t->data));
  text += ")";
}

// The inputs' data addresses are part of the text; the outputs' are not (an allocating call
// gets a new buffer each time).
std::string describe_call(const bp_call* call) {
  std::string text = std::string(call->op_name) + " nargs " + std::to_string(call->nargs) +
                     " noutputs " + std::to_string(call->noutputs) + " device " +
                     std::to_string(call->device_index) + ":";
  for (size_t i = 0; i < call->nargs; ++i) {
    const bp_value& v = call->args[i];
    const bool output = i >= call->nargs - call->noutputs;
    switch (v.tag) {
      case BP_VALUE_TENSOR:
        describe_tensor(text, v.u.tensor, !output);
        break;
      case BP_VALUE_INT:
        text += " I(" + std::to_string(v.u.i) + ")";
        break;
      case BP_VALUE_FLOAT:
        text += " F(" + std::to_string(v.u.f) + ")";
        break;
      case BP_VALUE_BOOL:
        text += std::string(" B(") + (v.u.b ? "true" : "false") + ")";
        break;
      default:
        text += " tag(" + std::to_string(v.tag) + ")";
    }
  }
  return text;
}

bp_status add_kernel(const bp_call* call) {
  if (called_while_down()) return BP_ERR_INTERNAL;
  // A test may hold the kernel here to unregister the plugin while a call is in flight.
  g_state.add_entered++;
  while (g_state.hold_add.load()) std::this_thread::yield();
  g_state.add_calls++;
  {
    // Kernels run on many threads at once (tests/dispatch/test_concurrency.cpp).
    std::lock_guard lock(g_record_mu);
    g_state.last_add_call = describe_call(call);
  }
  if (g_state.fail_add) {
    g_host->set_error(g_host->host, BP_ERR_DEVICE, "test_dev add: failing on request");
    return BP_ERR_DEVICE;
  }
  const bp_tensor* a = call->args[0].u.tensor;
  const bp_tensor* b = call->args[1].u.tensor;
  const double alpha =
      call->args[2].tag == BP_VALUE_FLOAT ? call->args[2].u.f : double(call->args[2].u.i);
  const bp_tensor* out = call->args[3].u.tensor;
  int64_t idx[16] = {};
  int64_t n = 1;
  for (int32_t d = 0; d < out->ndim; ++d) n *= out->shape[d];
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i;
    for (int32_t d = out->ndim - 1; d >= 0; --d) {
      idx[d] = rest % out->shape[d];
      rest /= out->shape[d];
    }
    *element(out, idx) = *element(a, idx) + static_cast<float>(alpha) * *element(b, idx);
  }
  return BP_OK;
}

bp_status fill_kernel(const bp_call* call) {
  if (called_while_down()) return BP_ERR_INTERNAL;
  g_state.fill_calls++;
  const bp_tensor* self = call->args[0].u.tensor;
  const bp_value& v = call->args[1];
  const double value = v.tag == BP_VALUE_FLOAT ? v.u.f
                       : v.tag == BP_VALUE_INT ? double(v.u.i)
                                               : v.u.b;
  if (self->dtype != BP_DTYPE_F32 && self->dtype != BP_DTYPE_F64) {
    g_host->set_error(g_host->host, BP_ERR_UNSUPPORTED, "test_dev fill_: only f32/f64");
    return BP_ERR_UNSUPPORTED;
  }
  int64_t n = 1;
  for (int32_t d = 0; d < self->ndim; ++d) n *= self->shape[d];
  // 0-d and contiguous tensors only: enough for the tests that use it.
  char* base = static_cast<char*>(self->data) + self->byte_offset;
  for (int64_t i = 0; i < n; ++i) {
    if (self->dtype == BP_DTYPE_F32)
      reinterpret_cast<float*>(base)[i] = static_cast<float>(value);
    else
      reinterpret_cast<double*>(base)[i] = value;
  }
  return BP_OK;
}

double load(const bp_tensor* t, const int64_t* idx) {
  int64_t off = 0;
  for (int32_t d = 0; d < t->ndim; ++d) off += idx[d] * t->strides[d];
  const char* base = static_cast<const char*>(t->data) + t->byte_offset;
  return t->dtype == BP_DTYPE_F32 ? reinterpret_cast<const float*>(base)[off]
                                  : reinterpret_cast<const double*>(base)[off];
}

// copy_ between f32 and f64 tensors of any strides (enough for dtype conversions).
bp_status copy_kernel(const bp_call* call) {
  if (called_while_down()) return BP_ERR_INTERNAL;
  const bp_tensor* self = call->args[0].u.tensor;
  const bp_tensor* src = call->args[1].u.tensor;
  for (const bp_tensor* t : {self, src})
    if (t->dtype != BP_DTYPE_F32 && t->dtype != BP_DTYPE_F64) {
      g_host->set_error(g_host->host, BP_ERR_UNSUPPORTED, "test_dev copy_: only f32/f64");
      return BP_ERR_UNSUPPORTED;
    }
  int64_t idx[16] = {};
  int64_t n = 1;
  for (int32_t d = 0; d < self->ndim; ++d) n *= self->shape[d];
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, off = 0;
    for (int32_t d = self->ndim - 1; d >= 0; --d) {
      idx[d] = rest % self->shape[d];
      rest /= self->shape[d];
      off += idx[d] * self->strides[d];
    }
    char* base = static_cast<char*>(self->data) + self->byte_offset;
    const double v = load(src, idx);
    if (self->dtype == BP_DTYPE_F32)
      reinterpret_cast<float*>(base)[off] = static_cast<float>(v);
    else
      reinterpret_cast<double*>(base)[off] = v;
  }
  return BP_OK;
}

bp_status register_all(const bp_host_api* host) {
  uint32_t id = 0;
  const bp_device_api* api = g_mode == TestPluginMode::DeviceApiV1_1 ? &kApiV1_1 : &kApi;
  bp_status s = host->register_backend(host->host, "test_dev", api, nullptr, &id);
  if (s != BP_OK) return s;
  s = host->register_kernel(host->host, id, "add.Tensor", BP_DTYPE_BIT(BP_DTYPE_F32), add_kernel,
                            nullptr);
  if (s != BP_OK) return s;
  s = host->register_kernel(host->host, id, "fill_.Scalar", BP_DTYPES_ALL, fill_kernel, nullptr);
  if (s != BP_OK) return s;
  s = host->register_kernel(host->host, id, "copy_",
                            BP_DTYPE_BIT(BP_DTYPE_F32) | BP_DTYPE_BIT(BP_DTYPE_F64), copy_kernel,
                            nullptr);
  if (s != BP_OK) return s;
  if (g_mode == TestPluginMode::UnknownOp)
    return host->register_kernel(host->host, id, "frobnicate.Tensor", BP_DTYPES_ALL, add_kernel,
                                 nullptr);
  if (g_mode == TestPluginMode::DuplicateKernel) {
    s = host->register_kernel(host->host, id, "add.Tensor", BP_DTYPE_BIT(BP_DTYPE_F64), add_kernel,
                              nullptr);
    if (s != BP_OK) return s;
    return host->register_kernel(host->host, id, "add.Tensor", BP_DTYPE_BIT(BP_DTYPE_F16),
                                 copy_kernel, nullptr);
  }
  if (g_mode == TestPluginMode::InitFails) {
    host->set_error(host->host, BP_ERR_DEVICE, "test: the device did not answer");
    return BP_ERR_DEVICE;
  }
  return BP_OK;
}

bp_status init(const bp_host_api* host, const char* options) {
  g_host = host;
  std::snprintf(g_options, sizeof g_options, "%s", options ? options : "");
  if (g_mode == TestPluginMode::InitThrows) throw std::runtime_error("boom");
  g_live = true;  // registration asks the device for its count and properties
  const bp_status s = register_all(host);
  if (s != BP_OK) g_live = false;  // a failed init gets no shutdown: it is over now
  return s;
}

void shutdown() {
  g_live = false;
  g_state.shutdowns++;
  g_host = nullptr;
}

bp_plugin_descriptor g_descriptor = {sizeof(bp_plugin_descriptor),
                                     BP_ABI_MAJOR,
                                     BP_ABI_MINOR,
                                     "testdev",
                                     "1.0",
                                     "Backplane tests",
                                     init,
                                     shutdown};

}  // namespace

TestPluginState& test_plugin_state() {
  return g_state;
}

const bp_plugin_descriptor* test_plugin_descriptor(TestPluginMode mode) {
  g_mode = mode;
  return &g_descriptor;
}

}  // namespace bp::testing
