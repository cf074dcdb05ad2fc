// <backplane/backplane.hpp>: the one header an application includes. It brings the core
// types (bp::Tensor, bp::Device, bp::ScalarType, bp::Scalar, bp::Error), tensor creation
// and transfer (tensor_api.hpp), every operator (ops.hpp; the random ops and their
// generator in random.hpp), the runtime's introspection
// (dispatch/runtime.hpp: backends, devices, the computed dispatch table of an op) and its
// start-up from the user's config (dispatch/init.hpp: bp::init()), its device memory
// (dispatch/memory.hpp: the caching allocator's statistics, bp::empty_cache) and tracing
// (dispatch/trace.hpp).
// Every function it brings is thread-safe (docs/reliability.md, "Thread-safety contract");
// one Tensor handle must not be mutated by two threads at once.
#pragma once

#include "backplane/core/device.hpp"
#include "backplane/core/dtype.hpp"
#include "backplane/core/error.hpp"
#include "backplane/core/scalar.hpp"
#include "backplane/core/tensor.hpp"
#include "backplane/dispatch/init.hpp"
#include "backplane/dispatch/memory.hpp"
#include "backplane/dispatch/runtime.hpp"
#include "backplane/dispatch/trace.hpp"
#include "backplane/dlpack.hpp"
#include "backplane/ops.hpp"
#include "backplane/random.hpp"
#include "backplane/tensor_api.hpp"
