/* The ABI-matrix fixture plugin (tests/abi, scripts/check-abi-matrix): a plugin written in
 * plain C against plugin.h alone, using nothing past ABI 1.0, so that it builds against
 * every frozen header (tests/abi/frozen/1.<m>) and records that header's minor and struct
 * sizes. One host-memory device (backend "abi_fixture") and the kernels neg and abs for
 * f32 and f64 over any strides: enough for `backplane conformance` to compare real results
 * from an old binary in the current runtime.
 *
 * Built with ABI_FIXTURE_NEWER_MINOR defined, the descriptor claims BP_ABI_MINOR + 1: a
 * plugin newer than the runtime of its header, which the runtime must refuse before init. */
#include <backplane/plugin.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef ABI_FIXTURE_NEWER_MINOR
#define ABI_FIXTURE_MINOR (BP_ABI_MINOR + 1)
#else
#define ABI_FIXTURE_MINOR BP_ABI_MINOR
#endif

/* More dims than any tensor the runtime makes; a call beyond it is refused, not overrun. */
#define ABI_FIXTURE_MAX_DIMS 64

/* Set by init: errors are reported through the host that loaded the plugin. */
static const bp_host_api* g_host = NULL;

static bp_status fail(bp_status code, const char* message) {
  g_host->set_error(g_host->host, code, message);
  return code;
}

/* ---- the device: one, over host memory ---------------------------------------------- */

static bp_status device_count(void* ctx, int32_t* out_count, const char** out_reason) {
  (void)ctx;
  *out_count = 1;
  if (out_reason) *out_reason = NULL;
  return BP_OK;
}

static bp_status check_index(int32_t index) {
  return index == 0 ? BP_OK : fail(BP_ERR_INVALID_ARGUMENT, "abi_fixture has one device (index 0)");
}

/* Writes only ABI 1.0 members: they lie within the struct_size of every 1.x runtime. */
static bp_status device_properties(void* ctx, int32_t index, bp_device_props* out) {
  (void)ctx;
  if (check_index(index) != BP_OK) return BP_ERR_INVALID_ARGUMENT;
  snprintf(out->name, sizeof out->name, "ABI %d.%d fixture device (host memory)", BP_ABI_MAJOR,
           BP_ABI_MINOR);
  snprintf(out->vendor, sizeof out->vendor, "Backplane tests");
  out->compute_units = 1;
  out->flags = BP_DEVICE_HOST_ACCESSIBLE;
  out->dtypes = BP_DTYPES_ALL;
  return BP_OK;
}

/* A request beyond physical memory is refused rather than handed to aligned_alloc, which
 * with overcommit may succeed and kill the process at first touch. */
static bp_status device_alloc(void* ctx, int32_t index, size_t bytes, size_t alignment,
                              void** out) {
  (void)ctx;
  if (check_index(index) != BP_OK) return BP_ERR_INVALID_ARGUMENT;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    return fail(BP_ERR_INVALID_ARGUMENT, "abi_fixture: alignment is not a power of two");
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0 && bytes / (size_t)page >= (size_t)pages)
    return fail(BP_ERR_OUT_OF_MEMORY, "abi_fixture: more than the host's physical memory");
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  /* aligned_alloc wants a non-zero multiple of the alignment. */
  const size_t size = bytes == 0 ? alignment : (bytes + alignment - 1) / alignment * alignment;
  *out = size < bytes ? NULL : aligned_alloc(alignment, size);
  return *out ? BP_OK : fail(BP_ERR_OUT_OF_MEMORY, "abi_fixture: cannot allocate");
}

static bp_status device_free(void* ctx, int32_t index, void* ptr) {
  (void)ctx;
  (void)index;
  free(ptr);
  return BP_OK;
}

static bp_status device_copy(void* ctx, int32_t index, bp_copy_kind kind, void* dst,
                             const void* src, size_t bytes, void* stream) {
  (void)ctx;
  (void)kind;
  (void)stream;
  if (check_index(index) != BP_OK) return BP_ERR_INVALID_ARGUMENT;
  if (bytes) memmove(dst, src, bytes);
  return BP_OK;
}

/* ABI 1.0's members only, by name: built against a later header the slots it added
 * (device_attributes) stay NULL, which says "not provided". No streams, no synchronize:
 * every call is synchronous. */
static const bp_device_api g_device_api = {.struct_size = sizeof(bp_device_api),
                                           .device_count = device_count,
                                           .device_properties = device_properties,
                                           .alloc = device_alloc,
                                           .free = device_free,
                                           .copy = device_copy};

/* ---- kernels: out = f(self), any strides ------------------------------------------------ */

typedef void (*element_fn)(const void* in, void* out);

static void neg_f32(const void* in, void* out) {
  *(float*)out = -*(const float*)in;
}
static void neg_f64(const void* in, void* out) {
  *(double*)out = -*(const double*)in;
}
/* fabs, not `x < 0 ? -x : x`: abs(-0.0) is +0.0, as in PyTorch. */
static void abs_f32(const void* in, void* out) {
  *(float*)out = fabsf(*(const float*)in);
}
static void abs_f64(const void* in, void* out) {
  *(double*)out = fabs(*(const double*)in);
}

/* What one registration runs: the element function of each dtype it takes. */
typedef struct unary_kernel {
  element_fn f32;
  element_fn f64;
} unary_kernel;

static const unary_kernel g_neg = {neg_f32, neg_f64};
static const unary_kernel g_abs = {abs_f32, abs_f64};

/* Byte address of the element at `index` (one entry per dim). */
static char* element_at(const bp_tensor* t, const int64_t* index, size_t item) {
  int64_t offset = 0;
  for (int32_t d = 0; d < t->ndim; ++d) offset += index[d] * t->strides[d];
  return (char*)t->data + t->byte_offset + offset * (int64_t)item;
}

/* Runs f over every element in row-major order. `in` and `out` have one shape (the runtime
 * allocated out by the meta rule); an in-place call passes one tensor as both, which an
 * element-by-element walk handles. */
static void for_each_element(const bp_tensor* in, const bp_tensor* out, element_fn f, size_t item) {
  int64_t index[ABI_FIXTURE_MAX_DIMS] = {0};
  for (int32_t d = 0; d < out->ndim; ++d)
    if (out->shape[d] == 0) return;
  for (;;) {
    f(element_at(in, index, item), element_at(out, index, item));
    int32_t d = out->ndim - 1;
    while (d >= 0 && ++index[d] == out->shape[d]) index[d--] = 0;
    if (d < 0) return;
  }
}

static bp_status unary(const bp_call* call) {
  const unary_kernel* k = (const unary_kernel*)call->kernel_ctx;
  if (call->nargs != 2 || call->args[0].tag != BP_VALUE_TENSOR ||
      call->args[1].tag != BP_VALUE_TENSOR)
    return fail(BP_ERR_INVALID_ARGUMENT, "abi_fixture: a unary kernel takes (self, out)");
  const bp_tensor* in = call->args[0].u.tensor;
  const bp_tensor* out = call->args[1].u.tensor;
  if (in->dtype != out->dtype || in->ndim != out->ndim || out->ndim > ABI_FIXTURE_MAX_DIMS)
    return fail(BP_ERR_UNSUPPORTED, "abi_fixture: unexpected dtypes or dims");
  if (out->dtype == BP_DTYPE_F32)
    for_each_element(in, out, k->f32, sizeof(float));
  else if (out->dtype == BP_DTYPE_F64)
    for_each_element(in, out, k->f64, sizeof(double));
  else
    return fail(BP_ERR_UNSUPPORTED, "abi_fixture: only f32 and f64");
  return BP_OK;
}

/* ---- the plugin ------------------------------------------------------------------------ */

static bp_status init(const bp_host_api* host, const char* options) {
  (void)options;
  g_host = host;
  const bp_dtype_mask floats = BP_DTYPE_BIT(BP_DTYPE_F32) | BP_DTYPE_BIT(BP_DTYPE_F64);
  uint32_t id = 0;
  bp_status s = host->register_backend(host->host, "abi_fixture", &g_device_api, NULL, &id);
  if (s == BP_OK) s = host->register_kernel(host->host, id, "neg", floats, unary, (void*)&g_neg);
  if (s == BP_OK) s = host->register_kernel(host->host, id, "abs", floats, unary, (void*)&g_abs);
  return s;
}

static const bp_plugin_descriptor g_descriptor = {sizeof(bp_plugin_descriptor),
                                                  BP_ABI_MAJOR,
                                                  ABI_FIXTURE_MINOR,
                                                  "abi_fixture",
                                                  "0.1.0",
                                                  "Backplane tests",
                                                  init,
                                                  NULL};

BP_EXPORT const bp_plugin_descriptor* bp_plugin_query(void) {
  return &g_descriptor;
}
