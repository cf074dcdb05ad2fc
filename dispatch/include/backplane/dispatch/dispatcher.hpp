// The boxed call path: call any operator by name or id with boxed arguments (bp::IValue, in
// schema order; trailing arguments with defaults may be omitted). The typed API in ops.hpp
// is a thin layer over this; the conformance suite and the composites use it directly.
// Thread-safe: kernel tables are read without locks.
#pragma once

#include "backplane/core/catalog.hpp"
#include "backplane/core/ivalue.hpp"

#include <span>
#include <string_view>
#include <vector>

namespace bp {

// Calls the functional form and returns its outputs (for a mutating op such as copy_, the
// mutated argument).
std::vector<Tensor> call(OpId op, std::vector<IValue> args);
std::vector<Tensor> call(std::string_view op_name, std::vector<IValue> args);

// Out-variant: writes the outputs into `outs` (one per output of the op). An undefined or
// empty out is replaced by a newly allocated tensor; otherwise its shape must equal the
// result's, its device the call's, and the result dtype must be castable to its dtype.
// With `in_place`, an out is never replaced: its shape must equal the result's even when
// empty (bp::add_(a, b) cannot grow `a`).
void call_out(OpId op, std::vector<IValue> args, std::span<Tensor* const> outs,
              bool in_place = false);

}  // namespace bp
