// Pins the layout of every struct of the plugin ABI (plugin.h) on the 64-bit platforms we
// build for, and the values of its codes. A change that moves, removes or resizes a member,
// or renumbers a code, fails here — at compile time (static_assert) and as a ctest test.
// Appending a member is the only compatible change: add its pin, update the size pin, bump
// BP_ABI_MINOR and record it in CHANGELOG.md's ABI section.
#include <backplane/plugin.h>

#include <doctest/doctest.h>

#include <cstddef>

static_assert(sizeof(void*) == 8, "the pinned layout below is the LP64 one");

#define BP_PIN(type, member, offset) \
  static_assert(offsetof(type, member) == (offset), #type "." #member)
#define BP_PIN_SIZE(type, size) static_assert(sizeof(type) == (size), "sizeof " #type)

namespace {

// bp_tensor
BP_PIN_SIZE(bp_tensor, 56);
BP_PIN(bp_tensor, struct_size, 0);
BP_PIN(bp_tensor, data, 8);
BP_PIN(bp_tensor, byte_offset, 16);
BP_PIN(bp_tensor, device_type, 24);
BP_PIN(bp_tensor, device_index, 28);
BP_PIN(bp_tensor, dtype, 32);
BP_PIN(bp_tensor, ndim, 36);
BP_PIN(bp_tensor, shape, 40);
BP_PIN(bp_tensor, strides, 48);
// bp_value
BP_PIN_SIZE(bp_value, 24);
BP_PIN(bp_value, tag, 0);
BP_PIN(bp_value, u, 8);
// bp_dense_call (ABI 1.3)
BP_PIN_SIZE(bp_dense_call, 56);
BP_PIN(bp_dense_call, struct_size, 0);
BP_PIN(bp_dense_call, out, 8);
BP_PIN(bp_dense_call, inputs, 16);
BP_PIN(bp_dense_call, scalars, 24);
BP_PIN(bp_dense_call, numel, 32);
BP_PIN(bp_dense_call, dtype, 40);
BP_PIN(bp_dense_call, out_dtype, 41);
BP_PIN(bp_dense_call, device_index, 44);
BP_PIN(bp_dense_call, kernel_ctx, 48);
// bp_call
BP_PIN_SIZE(bp_call, 64);
BP_PIN(bp_call, struct_size, 0);
BP_PIN(bp_call, op_name, 8);
BP_PIN(bp_call, args, 16);
BP_PIN(bp_call, nargs, 24);
BP_PIN(bp_call, noutputs, 32);
BP_PIN(bp_call, device_index, 40);
BP_PIN(bp_call, stream, 48);
BP_PIN(bp_call, kernel_ctx, 56);
// bp_device_props
BP_PIN_SIZE(bp_device_props, 280);
BP_PIN(bp_device_props, struct_size, 0);
BP_PIN(bp_device_props, name, 8);
BP_PIN(bp_device_props, vendor, 136);
BP_PIN(bp_device_props, uuid, 200);
BP_PIN(bp_device_props, total_memory, 216);
BP_PIN(bp_device_props, free_memory, 224);
BP_PIN(bp_device_props, compute_units, 232);
BP_PIN(bp_device_props, flags, 236);
BP_PIN(bp_device_props, dtypes, 240);
BP_PIN(bp_device_props, architecture, 244);  // ABI 1.1
// bp_device_api
BP_PIN_SIZE(bp_device_api, 80);
BP_PIN(bp_device_api, struct_size, 0);
BP_PIN(bp_device_api, device_count, 8);
BP_PIN(bp_device_api, device_properties, 16);
BP_PIN(bp_device_api, alloc, 24);
BP_PIN(bp_device_api, free, 32);
BP_PIN(bp_device_api, copy, 40);
BP_PIN(bp_device_api, stream_create, 48);
BP_PIN(bp_device_api, stream_destroy, 56);
BP_PIN(bp_device_api, synchronize, 64);
BP_PIN(bp_device_api, device_attributes, 72);  // ABI 1.2
// bp_host_api
BP_PIN_SIZE(bp_host_api, 64);
BP_PIN(bp_host_api, struct_size, 0);
BP_PIN(bp_host_api, abi_major, 8);
BP_PIN(bp_host_api, abi_minor, 12);
BP_PIN(bp_host_api, host, 16);
BP_PIN(bp_host_api, register_backend, 24);
BP_PIN(bp_host_api, register_kernel, 32);
BP_PIN(bp_host_api, set_error, 40);
BP_PIN(bp_host_api, log, 48);
BP_PIN(bp_host_api, register_dense_kernel, 56);  // ABI 1.3
// bp_plugin_descriptor
BP_PIN_SIZE(bp_plugin_descriptor, 56);
BP_PIN(bp_plugin_descriptor, struct_size, 0);
BP_PIN(bp_plugin_descriptor, abi_major, 8);
BP_PIN(bp_plugin_descriptor, abi_minor, 12);
BP_PIN(bp_plugin_descriptor, name, 16);
BP_PIN(bp_plugin_descriptor, version, 24);
BP_PIN(bp_plugin_descriptor, vendor, 32);
BP_PIN(bp_plugin_descriptor, init, 40);
BP_PIN(bp_plugin_descriptor, shutdown, 48);
BP_PIN(bp_value, u.list.count, 16);

// Codes are part of the ABI too.
static_assert(BP_ABI_MAJOR == 1);
static_assert(BP_OK == 0 && BP_ERR_INVALID_ARGUMENT == 1 && BP_ERR_UNSUPPORTED == 2 &&
              BP_ERR_OUT_OF_MEMORY == 3 && BP_ERR_DEVICE == 4 && BP_ERR_INDEX == 5 &&
              BP_ERR_INTERNAL == 6 && BP_ERR_NOT_FOUND == 7 && BP_ERR_NO_DEVICE == 8);
static_assert(BP_DTYPE_BOOL == 0 && BP_DTYPE_I8 == 1 && BP_DTYPE_U8 == 2 && BP_DTYPE_I16 == 3 &&
              BP_DTYPE_I32 == 4 && BP_DTYPE_I64 == 5 && BP_DTYPE_F16 == 6 && BP_DTYPE_BF16 == 7 &&
              BP_DTYPE_F32 == 8 && BP_DTYPE_F64 == 9);
static_assert(BP_VALUE_NONE == 0 && BP_VALUE_TENSOR == 1 && BP_VALUE_TENSOR_LIST == 2 &&
              BP_VALUE_INT == 3 && BP_VALUE_FLOAT == 4 && BP_VALUE_BOOL == 5 &&
              BP_VALUE_INT_LIST == 6 && BP_VALUE_DTYPE == 7 && BP_VALUE_STRING == 8 &&
              BP_VALUE_DEVICE == 9);
static_assert(BP_COPY_HOST_TO_DEVICE == 0 && BP_COPY_DEVICE_TO_HOST == 1 &&
              BP_COPY_DEVICE_TO_DEVICE == 2);
static_assert(BP_DEVICE_HOST_ACCESSIBLE == 1);

}  // namespace

TEST_CASE("the ABI structs end where their last pinned member ends") {
  // The size pins above would also catch this; this case makes the check visible in ctest
  // and guards the rule that struct_size-based feature detection relies on.
  CHECK(offsetof(bp_plugin_descriptor, shutdown) + sizeof(void*) == sizeof(bp_plugin_descriptor));
  CHECK(offsetof(bp_host_api, register_dense_kernel) + sizeof(void*) == sizeof(bp_host_api));
  CHECK(offsetof(bp_device_api, device_attributes) + sizeof(void*) == sizeof(bp_device_api));
  CHECK(offsetof(bp_call, kernel_ctx) + sizeof(void*) == sizeof(bp_call));
  CHECK(offsetof(bp_dense_call, kernel_ctx) + sizeof(void*) == sizeof(bp_dense_call));
  CHECK(offsetof(bp_tensor, strides) + sizeof(void*) == sizeof(bp_tensor));
  CHECK(offsetof(bp_device_props, dtypes) + sizeof(bp_dtype_mask) <= sizeof(bp_device_props));
}
