// The C++ plugin SDK in one include: dtypes and PyTorch's conversions, errors, tensor
// handles and views, typed kernels, argument checks and op families, the device-API base and
// the plugin entry point, all header-only over backplane/plugin.h.
// docs/plugin-guide.md walks through a plugin written with it.
#pragma once

#include <backplane/plugin.h>
#include <backplane/sdk/argument_checks.hpp>
#include <backplane/sdk/convert.hpp>
#include <backplane/sdk/convolution.hpp>
#include <backplane/sdk/device.hpp>
#include <backplane/sdk/dtype.hpp>
#include <backplane/sdk/error.hpp>
#include <backplane/sdk/half.hpp>
#include <backplane/sdk/int_math.hpp>
#include <backplane/sdk/kernel.hpp>
#include <backplane/sdk/op_families.hpp>
#include <backplane/sdk/plugin.hpp>
#include <backplane/sdk/pooling.hpp>
#include <backplane/sdk/pooling_kernels.hpp>
#include <backplane/sdk/strided_view.hpp>
#include <backplane/sdk/tensor.hpp>
