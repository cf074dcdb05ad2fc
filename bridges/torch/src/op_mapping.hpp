// Which aten operator runs which Backplane operator, derived from the two schema catalogs.
// Both sides use PyTorch's schema names, so the mapping is data: an aten overload maps to
// the Backplane op of the same name (functional, or in place as `name_`), or, for an
// `out=` overload, to the Backplane op of the same base name whose arguments are the aten
// overload's arguments without its outs. Arguments match by name and type. An aten
// argument Backplane lacks is allowed only at its default value (checked per call; other
// values run on PyTorch's CPU kernels). A short table (kAliases in op_mapping.cpp) names the
// few aten primitives whose Backplane op has another name (mm and bmm are matmul).
// docs/pytorch.md, "What maps to what", describes the rules.
#pragma once

#include <backplane/core/catalog.hpp>

#include <ATen/core/ivalue.h>

#include <string>
#include <vector>

namespace bp::torch_bridge {

enum class CallForm {
  Functional,  // returns new tensors
  InPlace,     // aten name_: writes its first argument
  Out,         // writes its out= arguments
  Mutating,    // a Backplane op that mutates its argument itself (copy_, fill_)
};
std::string_view to_string(CallForm form);

// An aten argument with no Backplane counterpart: the mapping applies only when the call
// passes one of `accepted` (its default, and values that mean the same to a Backplane
// device: pin_memory=False, layout=torch.strided).
struct RequiredValue {
  int aten_index = -1;
  std::string name;
  std::vector<c10::IValue> accepted;
};

// Source values of OpMapping::sources for a random op's `int seed, int offset` (docs/random.md):
// each call draws the seed from a PyTorch generator and starts at offset 0.
inline constexpr int kDrawnSeed = -2;
inline constexpr int kZeroOffset = -3;

struct OpMapping {
  std::string aten_name;  // "add.out" (namespace aten)
  OpId op = kInvalidOp;   // the Backplane op, e.g. add.Tensor
  CallForm form = CallForm::Functional;
  int aten_argument_count = 0;
  // Per Backplane argument, the aten argument it comes from (-1: the Backplane default).
  std::vector<int> sources;
  // Out: the aten indices of the out tensors; InPlace/Mutating: the written argument.
  std::vector<int> written;
  std::vector<RequiredValue> required;
  // Every tensor argument must have this many dims (mm: 2, bmm: 3); -1 when any.
  int required_dim = -1;
  // A random op: its seed is drawn from the aten `generator` argument at this index (a CPU
  // generator), or from PyTorch's default CPU generator when -1 or None.
  bool draws_seed = false;
  int generator = -1;
};

// Every aten operator PyTorch registered that maps to a Backplane op, skipping operators
// that already have a PrivateUse1 kernel (the tensor basics) and PyTorch's
// CompositeImplicitAutograd operators (they decompose into aten primitives before reaching
// a backend, and a backend kernel would hide their autograd formula).
std::vector<OpMapping> derive_mappings();

}  // namespace bp::torch_bridge
