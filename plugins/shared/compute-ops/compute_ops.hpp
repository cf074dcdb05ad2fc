// The ops of plugins/shared/opencl-c-kernels/ for a backend whose devices implement
// ComputeDevice (the opencl, level-zero, cuda and rocm plugins). A backend registers them
// from its own plugin.cpp with one call:
//
//   clk::register_compute_ops(host, backend, compute_device_of, dtypes);
//
// which registers every family; each family's op names and kernels are in the file of the
// same name here (unary.cpp, binary.cpp, data_movement.cpp, reductions.cpp, linalg.cpp),
// named as core names them (core/src/ops/<family>.cpp). Each kernel function unpacks its bp_call,
// prepares the geometry of its tensors (dims coalesced, docs/opencl.md) and launches the matching
// OpenCL C kernel on the call's device.
#pragma once

#include "compute_device.hpp"

#include <backplane/plugin.h>
#include <backplane/sdk/plugin.hpp>

namespace bp::clk {

// The ComputeDevice of a device index of the backend, or nullptr when there is none.
using DeviceLookup = ComputeDevice* (*)(int32_t device_index);

// Registers the shared kernels for one backend through the SDK's Registrar, for the dtypes
// in `dtypes` only (the union of what the backend's devices support; a device without fp64
// rejects an f64 call with BP_ERR_UNSUPPORTED). Constructing it makes `lookup` the way every
// shared kernel finds its device (one backend per plugin). add() throws sdk::Error when the
// host refuses a registration.
class OpRegistrar {
 public:
  OpRegistrar(const sdk::Host& host, uint32_t backend_id, DeviceLookup lookup,
              bp_dtype_mask dtypes);
  // `kernel` is the kernel function's context: the OpenCL C kernel's name for the
  // table-driven kernels, else null.
  void add(const char* op, bp_dtype_mask dtypes, bp_kernel_fn fn, const char* kernel = nullptr);
  // Whether some device of the backend has fp64 (the f64 dtype is among `dtypes`).
  bool any_device_has_fp64() const { return (dtypes_ & BP_DTYPE_BIT(BP_DTYPE_F64)) != 0; }

 private:
  sdk::Registrar registrar_;
  bp_dtype_mask dtypes_;
};

// Every op of every family below for backend `backend_id` (OpRegistrar says how). A backend
// that runs only some families would call those instead.
void register_compute_ops(const sdk::Host& host, uint32_t backend_id, DeviceLookup lookup,
                          bp_dtype_mask dtypes);

// The families, each in its file of this folder.
void register_unary(OpRegistrar& ops);          // neg, abs, exp, ..., gelu
void register_binary(OpRegistrar& ops);         // add.Tensor, mul.Tensor, ..., clamp
void register_data_movement(OpRegistrar& ops);  // copy_, fill_, arange, cat, index_select, ...
void register_reductions(OpRegistrar& ops);     // sum, prod, amax, amin, argmax, ...
void register_linalg(OpRegistrar& ops);         // matmul
void register_activation_backward(OpRegistrar& ops);  // threshold_backward ... tanh_backward
void register_indexed_writes(OpRegistrar& ops);       // index_add
void register_scans(OpRegistrar& ops);                // cumsum cumprod
void register_convolution(OpRegistrar& ops);          // convolution_forward, _backward_input,
                                                      // _backward_weight
void register_pooling(OpRegistrar& ops);              // max_pool2d_with_indices, avg_pool2d,
                                                      // _adaptive_avg_pool2d (+ _backward)
void register_random(OpRegistrar& ops);               // uniform_ normal_ random_.from
void register_sort(OpRegistrar& ops);                 // sort.stable
void register_scatter(OpRegistrar& ops);              // scatter.src scatter_reduce.two
void register_nonzero(OpRegistrar& ops);              // nonzero_static

}  // namespace bp::clk
