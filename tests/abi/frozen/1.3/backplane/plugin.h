/* Backplane plugin ABI: the only contract between the runtime and a backend plugin.
 *
 * Plain C, no C++ types. A plugin exports exactly one symbol, `bp_plugin_query`, which
 * returns a static descriptor; everything else reaches the plugin through the function
 * tables below. Rules that keep one plugin binary working across runtime versions:
 *   - every struct that crosses the boundary starts with `size_t struct_size`;
 *   - members are only ever appended (a layout test pins every offset);
 *   - host and plugin must agree on BP_ABI_MAJOR; the minor is negotiated (a plugin built
 *     against a newer minor than the host is refused);
 *   - C++ exceptions never cross the boundary: functions return a bp_status and report the
 *     details with host->set_error();
 *   - ownership is explicit in each comment: "borrowed" pointers are valid for the duration
 *     of the call only.
 * Contracts that hold for every function below:
 *   - Input structs (bp_call, bp_dense_call, bp_tensor, bp_device_api, bp_host_api, the
 *     descriptor) carry the struct_size of the side that filled them; the reader uses only
 *     the members that lie within it. The one output struct, bp_device_props, is zeroed by
 *     the runtime, which sets struct_size to the size it was built with: the plugin writes
 *     only members that lie within that size and leaves struct_size as it found it.
 *   - Strings a plugin hands to the runtime are NUL terminated UTF-8. The descriptor's
 *     name, version and vendor stay valid from bp_plugin_query until shutdown returns (a
 *     string literal is the usual choice); device_count's reason until the next call into
 *     the plugin. Everything else (backend and op names, error and log messages) is copied
 *     before the call returns. The runtime reads at most 256 bytes of a name or reason.
 *   - Streams are reserved in ABI 1.x: the runtime passes NULL wherever a stream is taken
 *     (bp_call.stream, copy, synchronize) and never calls stream_create/stream_destroy. A
 *     kernel or copy may still run asynchronously on the device's default stream, in the
 *     order the runtime issues them; the runtime calls synchronize (when the device has
 *     one) after every copy to or from host memory and before the host reads a result.
 */
#ifndef BACKPLANE_PLUGIN_H
#define BACKPLANE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BP_ABI_MAJOR 1
#define BP_ABI_MINOR 3

#if defined(_WIN32)
#define BP_EXPORT __declspec(dllexport)
#else
#define BP_EXPORT __attribute__((visibility("default")))
#endif

/* ---- status codes ------------------------------------------------------------------ */
typedef int32_t bp_status;
enum {
  BP_OK = 0,
  BP_ERR_INVALID_ARGUMENT = 1, /* a value the callee cannot accept (shape, dim, option) */
  BP_ERR_UNSUPPORTED = 2,      /* op, dtype or feature not implemented by this backend */
  BP_ERR_OUT_OF_MEMORY = 3,    /* allocation failed */
  BP_ERR_DEVICE = 4,           /* the device or its driver failed / was lost */
  BP_ERR_INDEX = 5,            /* an index value out of range (index_select, gather) */
  BP_ERR_INTERNAL = 6,         /* a bug in the callee */
  BP_ERR_NOT_FOUND = 7,        /* unknown name (op, backend) */
  BP_ERR_NO_DEVICE = 8         /* the backend works but found no device */
};

/* ---- dtypes: stable codes, identical to bp::ScalarType ------------------------------ */
typedef uint8_t bp_dtype;
enum {
  BP_DTYPE_BOOL = 0,
  BP_DTYPE_I8 = 1,
  BP_DTYPE_U8 = 2,
  BP_DTYPE_I16 = 3,
  BP_DTYPE_I32 = 4,
  BP_DTYPE_I64 = 5,
  BP_DTYPE_F16 = 6,
  BP_DTYPE_BF16 = 7,
  BP_DTYPE_F32 = 8,
  BP_DTYPE_F64 = 9,
  BP_DTYPE_COUNT = 10
};
/* A set of dtypes for kernel registration: bit (1 << code). */
typedef uint32_t bp_dtype_mask;
#define BP_DTYPE_BIT(code) ((bp_dtype_mask)1u << (code))
#define BP_DTYPES_ALL ((bp_dtype_mask)((1u << BP_DTYPE_COUNT) - 1u))
#define BP_DTYPES_FLOATING                                                                 \
  (BP_DTYPE_BIT(BP_DTYPE_F16) | BP_DTYPE_BIT(BP_DTYPE_BF16) | BP_DTYPE_BIT(BP_DTYPE_F32) | \
   BP_DTYPE_BIT(BP_DTYPE_F64))
#define BP_DTYPES_INTEGRAL                                                              \
  (BP_DTYPE_BIT(BP_DTYPE_I8) | BP_DTYPE_BIT(BP_DTYPE_U8) | BP_DTYPE_BIT(BP_DTYPE_I16) | \
   BP_DTYPE_BIT(BP_DTYPE_I32) | BP_DTYPE_BIT(BP_DTYPE_I64))

/* ---- tensors: a DLPack-compatible strided view, borrowed for one call --------------- */
typedef struct bp_tensor {
  size_t struct_size;
  void* data;           /* base of the allocation (as DLPack's `data`) */
  uint64_t byte_offset; /* first element = (char*)data + byte_offset */
  uint32_t device_type; /* the runtime's backend slot of the device (informational) */
  int32_t device_index; /* index among this plugin's devices */
  bp_dtype dtype;
  int32_t ndim;           /* 0 for a scalar tensor */
  const int64_t* shape;   /* ndim entries; borrowed */
  const int64_t* strides; /* ndim entries, in elements (not bytes); always >= 0, and 0
                             for a broadcast dimension; borrowed */
} bp_tensor;

/* ---- boxed arguments --------------------------------------------------------------- */
typedef uint32_t bp_value_tag;
enum {
  BP_VALUE_NONE = 0,        /* an optional argument left unset */
  BP_VALUE_TENSOR = 1,      /* u.tensor */
  BP_VALUE_TENSOR_LIST = 2, /* u.list.tensors[0..count) */
  BP_VALUE_INT = 3,         /* u.i (also `Scalar` holding an integer) */
  BP_VALUE_FLOAT = 4,       /* u.f (also `Scalar` holding a floating value) */
  BP_VALUE_BOOL = 5,        /* u.b (also `Scalar` holding a bool) */
  BP_VALUE_INT_LIST = 6,    /* u.list.ints[0..count) */
  BP_VALUE_DTYPE = 7,       /* u.dtype */
  BP_VALUE_STRING = 8,      /* u.s, NUL-terminated */
  BP_VALUE_DEVICE = 9       /* u.device: {type, index} */
};

typedef struct bp_value {
  bp_value_tag tag;
  union {
    const bp_tensor* tensor;
    struct {
      union {
        const bp_tensor* const* tensors;
        const int64_t* ints;
      } items;
      size_t count;
    } list;
    int64_t i;
    double f;
    int32_t b;
    bp_dtype dtype;
    const char* s;
    struct {
      uint32_t type;
      int32_t index;
    } device;
  } u;
} bp_value;

/* ---- kernels ----------------------------------------------------------------------- */
/* What a kernel receives. Every kernel is the out-variant of the op it is registered for:
 * `args` holds the op's arguments in schema order followed by its outputs (already
 * allocated by the runtime with the shapes and dtypes of the op's meta rule). Tensor inputs
 * have been converted to the op's compute dtype, live on this kernel's device, and may be
 * strided (including 0-strides from broadcasting) with a byte offset. Outputs never overlap
 * inputs partially; an in-place call passes the same tensor as input and output. */
typedef struct bp_call {
  size_t struct_size;
  const char* op_name;  /* "add.Tensor"; borrowed */
  const bp_value* args; /* borrowed */
  size_t nargs;         /* number of inputs + number of outputs */
  size_t noutputs;      /* the last `noutputs` args are the outputs */
  int32_t device_index;
  void* stream;     /* reserved: NULL (the default stream) in ABI 1.x */
  void* kernel_ctx; /* what the plugin passed to register_kernel */
} bp_call;

/* Kernels run concurrently: the runtime calls them from any application thread, several at
 * once, also for one device and one op; a kernel keeps no unsynchronised state. */
typedef bp_status (*bp_kernel_fn)(const bp_call* call);

/* ABI 1.3: the dense entry of an elementwise kernel, an optional second function beside the
 * kernel of an elementwise op of schema (Tensor..., Scalar...) -> Tensor whose output has its
 * inputs' shape ("add.Tensor", "mul.Tensor", "maximum"; not matmul; register_dense_kernel). The
 * runtime calls it instead of the kernel only for a call the kernel would receive as: every tensor
 * argument and the output contiguous, with one shape of `numel` elements (numel >= 1); every tensor
 * argument in `dtype`, the compute dtype (no argument converted); the output in `out_dtype`, the
 * meta rule's result dtype; all on one device; the output exactly one of the inputs (an in-place
 * call) or overlapping none. The result must be the kernel's on the same call, bit for bit, and
 * conformance checks both. A dense entry that does not take a call (a Scalar it leaves to the
 * kernel's checks, a size the kernel runs on several threads) returns BP_ERR_UNSUPPORTED having
 * written nothing, without set_error: the runtime then calls the kernel. Any other non-OK status is
 * the call's error, reported as the kernel's are. Why it exists: for small tensors the descriptors
 * and the boxed arguments cost more than the arithmetic (docs/performance.md). */
typedef struct bp_dense_call {
  size_t struct_size;
  /* First elements: bp_tensor's data + byte_offset as a byte address. A plugin whose
   * allocations are handles rather than addresses (OpenCL's cl_mem) registers no dense entry. */
  void* out;                 /* the output's first element */
  const void* const* inputs; /* the tensor arguments' first elements, in schema order */
  const bp_value* scalars;   /* the Scalar arguments in schema order (BP_VALUE_INT, _FLOAT or
                                _BOOL; defaults filled in); NULL when the op has none */
  int64_t numel;
  bp_dtype dtype;     /* of every tensor argument */
  bp_dtype out_dtype; /* of the output */
  int32_t device_index;
  void* kernel_ctx; /* what the plugin passed to register_dense_kernel */
} bp_dense_call;

typedef bp_status (*bp_dense_kernel_fn)(const bp_dense_call* call);

/* ---- devices ----------------------------------------------------------------------- */
enum {
  BP_DEVICE_HOST_ACCESSIBLE = 1u << 0 /* the host may read and write its memory directly */
};

typedef struct bp_device_props {
  size_t struct_size;
  char name[128];
  char vendor[64];
  uint8_t uuid[16];      /* zero if the device has none */
  uint64_t total_memory; /* bytes */
  uint64_t free_memory;  /* bytes, 0 if unknown */
  uint32_t compute_units;
  uint32_t flags;       /* BP_DEVICE_* */
  bp_dtype_mask dtypes; /* dtypes the device can store and compute */
  /* ABI 1.1: the device's architecture as its vendor names it ("sm_90", "gfx90a"), NUL
   * terminated; empty when the plugin does not say (ABI 1.0 plugins never do). */
  char architecture[32];
} bp_device_props;

typedef uint32_t bp_copy_kind;
enum {
  BP_COPY_HOST_TO_DEVICE = 0,
  BP_COPY_DEVICE_TO_HOST = 1,
  BP_COPY_DEVICE_TO_DEVICE = 2 /* within one device */
};

/* Implemented by the plugin. `ctx` is what the plugin passed to register_backend. Every
 * function may be called from any thread; the plugin makes them thread-safe. */
typedef struct bp_device_api {
  size_t struct_size;
  /* Number of usable devices. When 0, *out_reason (static string, may be NULL) says why. */
  bp_status (*device_count)(void* ctx, int32_t* out_count, const char** out_reason);
  bp_status (*device_properties)(void* ctx, int32_t index, bp_device_props* out);
  /* Allocates `bytes` (may be 0: returns a unique non-NULL or NULL pointer, either is
   * accepted by free) aligned to at least `alignment` (a power of two). */
  bp_status (*alloc)(void* ctx, int32_t index, size_t bytes, size_t alignment, void** out);
  /* Frees what alloc returned. free(ctx, index, NULL) is allowed and does nothing. */
  bp_status (*free)(void* ctx, int32_t index, void* ptr);
  /* Copies `bytes` between host memory and this device, or within the device. Ordered on
   * `stream` (reserved: NULL, the default stream); host memory must stay valid until
   * synchronised. */
  bp_status (*copy)(void* ctx, int32_t index, bp_copy_kind kind, void* dst, const void* src,
                    size_t bytes, void* stream);
  /* Reserved in ABI 1.x (the runtime never calls them); may be NULL. */
  bp_status (*stream_create)(void* ctx, int32_t index, void** out_stream);
  bp_status (*stream_destroy)(void* ctx, int32_t index, void* stream);
  /* Blocks until all work on `stream` (NULL = default) is done. Optional (NULL: every
   * kernel and copy completes before it returns). */
  bp_status (*synchronize)(void* ctx, int32_t index, void* stream);
  /* ABI 1.2, optional (NULL, or absent in a 1.0/1.1 plugin's smaller struct_size: nothing to
   * say). Writes to `out` (`capacity` bytes, NUL terminated; truncated to fit) what decides
   * this device's results beyond its properties, as space-separated key=value pairs without
   * spaces in them, e.g. the CPU plugin's "isa=avx2 highway=AVX2 onednn=avx2". Reports print
   * them (backplane info, devices, run, conformance), so that results from two machines can
   * be compared; a key `isa` is the ISA level a reproducer sets (BACKPLANE_CPU_ISA). Called
   * on demand, never while loading, so it may do what loading must not (open a library). */
  bp_status (*device_attributes)(void* ctx, int32_t index, char* out, size_t capacity);
} bp_device_api;

/* ---- the host (runtime) side, passed to init ---------------------------------------- */
/* register_backend and register_kernel may be called only from init, on the thread that
 * runs it: later (from a kernel, another thread, after shutdown) they return
 * BP_ERR_INVALID_ARGUMENT and change nothing. set_error and log may be called at any time.
 * init runs with the runtime's registration lock held: a plugin linked into the host's
 * process may read the runtime from init (list backends, dispatch ops) but must not load or
 * unload plugins there (the runtime throws, and the plugin fails to load), nor wait for a
 * thread that calls the runtime. */
typedef struct bp_host_api {
  size_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor;
  void* host; /* opaque; pass back as the first argument of every call below */
  /* Registers a backend (a device type) by name, e.g. "cuda" or "acme_npu". The runtime
   * assigns its dispatch slot and returns it in *out_backend_id. `api` and `ctx` must stay
   * valid until shutdown. */
  bp_status (*register_backend)(void* host, const char* name, const bp_device_api* api, void* ctx,
                                uint32_t* out_backend_id);
  /* Registers the out-variant kernel of `op_name` ("add.Tensor") for the dtypes in
   * `dtypes` (compute dtypes, see bp_call). Unknown op names are an error. */
  bp_status (*register_kernel)(void* host, uint32_t backend_id, const char* op_name,
                               bp_dtype_mask dtypes, bp_kernel_fn fn, void* kernel_ctx);
  /* Records the message of the error the current call is about to return (thread-local;
   * copied). Call it before returning a non-OK status from a kernel or device function. */
  void (*set_error)(void* host, bp_status code, const char* message);
  /* level: 0 debug, 1 info, 2 warning, 3 error. */
  void (*log)(void* host, int32_t level, const char* message);
  /* ABI 1.3 (present when struct_size covers it). Registers the dense entry (bp_dense_call)
   * of `op_name`'s kernel for the dtypes in `dtypes`: register the kernel first; the dtypes
   * must be among the kernel's. Only the elementwise ops of bp_dense_call have one
   * (BP_ERR_INVALID_ARGUMENT otherwise). Optional: a plugin that registers none runs every
   * call through its kernels. */
  bp_status (*register_dense_kernel)(void* host, uint32_t backend_id, const char* op_name,
                                     bp_dtype_mask dtypes, bp_dense_kernel_fn fn, void* kernel_ctx);
} bp_host_api;

/* ---- the plugin descriptor ----------------------------------------------------------- */
typedef struct bp_plugin_descriptor {
  size_t struct_size;
  uint32_t abi_major;  /* BP_ABI_MAJOR the plugin was built against */
  uint32_t abi_minor;  /* BP_ABI_MINOR the plugin was built against */
  const char* name;    /* "reference"; valid until shutdown returns (see above) */
  const char* version; /* "1.4.0"; the same */
  const char* vendor;  /* "Acme"; the same */
  /* Registers backends and kernels through `host`. `options` is the plugin's config table
   * as TOML text (may be empty, never NULL). `host` stays valid until shutdown. */
  bp_status (*init)(const bp_host_api* host, const char* options);
  /* Releases everything; no call into the plugin follows. Runs once the plugin is
   * unregistered, no call into it is still running and no tensor holds memory of its
   * devices (their frees come first). May be NULL. */
  void (*shutdown)(void);
} bp_plugin_descriptor;

typedef const bp_plugin_descriptor* (*bp_plugin_query_fn)(void);

/* The one exported entry point of a plugin shared library. */
#define BP_PLUGIN_ENTRY_SYMBOL "bp_plugin_query"

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_PLUGIN_H */
