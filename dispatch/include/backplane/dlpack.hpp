// Exchanging tensors with other frameworks through DLPack (dlpack/dlpack.h, version 0.6),
// without copying. Ownership: to_dlpack returns a DLManagedTensor the caller must release
// by calling its deleter (it keeps the storage alive until then); from_dlpack takes
// ownership of the DLManagedTensor and calls its deleter when the last Backplane tensor
// viewing the memory is gone. Thread-safe.
#pragma once

#include "backplane/core/tensor.hpp"

struct DLManagedTensor;

namespace bp {

// Host-memory devices (the reference and CPU backends) export as kDLCPU; bool exports as
// type code 6 (kDLBool of DLPack 0.8; 0.6 has no bool code), bits 8.
DLManagedTensor* to_dlpack(const Tensor& t);

// Imports kDLCPU memory onto the default host device (cpu:0 when loaded, else reference:0).
// Other device types, negative strides, and unsupported dtypes (complex, lanes != 1) are a
// bp::Error naming what was found; on error the caller keeps ownership of `managed`.
Tensor from_dlpack(DLManagedTensor* managed);

}  // namespace bp
