// The generic PrivateUse1 kernel (generic_kernel.hpp).
#include "generic_kernel.hpp"

#include "cpu_fallback.hpp"
#include "device_map.hpp"
#include "tensor_convert.hpp"
#include "torch_errors.hpp"

#include <backplane/backplane.hpp>
#include <backplane/dispatch/dispatcher.hpp>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/Generator.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/TensorImpl.h>
#include <torch/library.h>

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>

namespace bp::torch_bridge {
namespace {

// Thrown while translating arguments when Backplane cannot take the call as given; the
// call then runs on the CPU fallback with this reason.
struct NotTranslatable {
  std::string reason;
};

bool on_backplane(const at::Tensor& t) {
  return t.device().type() == c10::DeviceType::PrivateUse1;
}

bool same_value(const c10::IValue& a, const c10::IValue& b) {
  if (a.isNone() || b.isNone()) return a.isNone() && b.isNone();
  if (a.isBool() && b.isBool()) return a.toBool() == b.toBool();
  if (a.isInt() && b.isInt()) return a.toInt() == b.toInt();
  if (a.isDouble() && b.isDouble()) return a.toDouble() == b.toDouble();
  if (a.isString() && b.isString()) return a.toStringRef() == b.toStringRef();
  if (a.isIntList() && b.isIntList()) return a.toIntVector() == b.toIntVector();
  return false;
}

class GenericKernel final : public c10::OperatorKernel {
 public:
  explicit GenericKernel(OpMapping mapping)
      : mapping_(std::move(mapping)), op_(Catalog::get().at(mapping_.op)) {}

  void operator()(const c10::OperatorHandle& handle, c10::DispatchKeySet /*keys*/,
                  torch::jit::Stack* stack) {
    const auto arguments = torch::jit::last(*stack, mapping_.aten_argument_count);
    std::optional<std::string> reason;
    const c10::DeviceIndex index = check_arguments(handle, arguments, reason);
    if (reason) return run_on_cpu(handle, stack, *reason);
    const Device device = backplane_device(index);
    try {
      std::vector<IValue> args = translate(handle, arguments, device);
      std::vector<at::Tensor> results = call(arguments, std::move(args), index);
      torch::jit::drop(*stack, mapping_.aten_argument_count);
      for (at::Tensor& result : results) torch::jit::push(*stack, std::move(result));
    } catch (const NotTranslatable& not_translatable) {
      run_on_cpu(handle, stack, not_translatable.reason);
    } catch (const Error& error) {
      // A device whose backend has no kernel for the op (and Backplane's own fallback off):
      // PyTorch's CPU kernel runs it. Any other Backplane error is the user's to see.
      if (error.code() != ErrorCode::NotImplemented) throw_torch_error(error);
      run_on_cpu(handle, stack, fmt::format("on {}: {}", device.str(), error.what()));
    }
  }

 private:
  // Whether aten argument `i` is an out= tensor (any shape: PyTorch resizes it).
  bool is_written(size_t i) const {
    return mapping_.form == CallForm::Out &&
           std::find(mapping_.written.begin(), mapping_.written.end(), static_cast<int>(i)) !=
               mapping_.written.end();
  }

  ValueName argument_name(const c10::OperatorHandle& handle, size_t i) const {
    return ValueName(handle.schema().arguments()[i].name(), mapping_.aten_name);
  }
  std::string argument_text(const c10::OperatorHandle& handle, size_t i) const {
    return argument_name(handle, i).str();
  }

  // The privateuseone index the call runs on: the one every PrivateUse1 tensor shares. Sets
  // `reason` when the call must go to the CPU fallback.
  c10::DeviceIndex check_arguments(const c10::OperatorHandle& handle,
                                   c10::ArrayRef<c10::IValue> arguments,
                                   std::optional<std::string>& reason) const {
    std::optional<c10::DeviceIndex> index;
    // `index_list`: an entry of a Tensor?[] (index's indices), which may be on the CPU
    // whatever its size, as PyTorch lets CPU indices index a CUDA tensor; translate moves it.
    auto check_tensor = [&](const at::Tensor& t, size_t i, bool index_list = false) {
      if (!t.defined()) return;
      if (on_backplane(t)) {
        TORCH_CHECK(!index || *index == t.device().index(),
                    "Expected all tensors to be on the same device, but found at least two "
                    "devices, privateuseone:",
                    int{*index}, " and ", t.device().str(), "! (when checking ",
                    argument_text(handle, i), ")");
        index = t.device().index();
      } else {
        TORCH_CHECK(t.is_cpu() && (t.dim() == 0 || index_list),
                    "Expected all tensors to be on the same device, but ", argument_text(handle, i),
                    " is on ", t.device().str(),
                    " (only 0-dim CPU tensors may join a privateuseone call)");
      }
      if (!has_backplane_dtype(t) && !reason)
        reason = fmt::format("{} has dtype {}, which Backplane does not support",
                             argument_text(handle, i), c10::toString(t.scalar_type()));
      if (mapping_.required_dim >= 0 && t.dim() != mapping_.required_dim && !reason &&
          !is_written(i))
        reason = fmt::format("{} has {} dims; aten::{} takes {}", argument_text(handle, i), t.dim(),
                             mapping_.aten_name, mapping_.required_dim);
    };
    for (size_t i = 0; i < arguments.size(); ++i) {
      if (arguments[i].isTensor()) {
        check_tensor(arguments[i].toTensor(), i);
      } else if (arguments[i].isTensorList()) {
        for (const at::Tensor& t : arguments[i].toTensorList()) check_tensor(t, i);
      } else if (arguments[i].isList()) {  // Tensor?[]: tensors and None
        for (const c10::IValue& entry : arguments[i].toListRef())
          if (entry.isTensor()) check_tensor(entry.toTensor(), i, true);
      }
    }
    for (const RequiredValue& required : mapping_.required)
      if (!reason && std::none_of(required.accepted.begin(), required.accepted.end(),
                                  [&](const c10::IValue& accepted) {
                                    return same_value(arguments[required.aten_index], accepted);
                                  }))
        reason = fmt::format("{} is {}; Backplane's {} has no such argument",
                             argument_text(handle, static_cast<size_t>(required.aten_index)),
                             c10::IValue(arguments[required.aten_index]).tagKind(), op_.name);
    if (index) return *index;
    for (const c10::IValue& value : arguments)  // a factory: its device argument
      if (value.isDevice() && value.toDevice().type() == c10::DeviceType::PrivateUse1 &&
          value.toDevice().has_index())
        return value.toDevice().index();
    return current_index();
  }

  IValue translate_tensor(const at::Tensor& t, const Device& device, const ValueName& what) const {
    if (!t.defined()) return IValue();
    if (on_backplane(t)) return backplane_view(t, what);
    // A 0-dim CPU tensor (a Python number PyTorch wrapped, or a real 0-dim tensor): a 0-dim
    // device tensor with the same value and the same role in type promotion.
    const ScalarType dtype = *backplane_dtype(t.scalar_type());
    return scalar_tensor(backplane_scalar(t.item(), what), dtype, device,
                         t.unsafeGetTensorImpl()->is_wrapped_number());
  }

  // A Tensor?[] (index's indices): None stays an undefined tensor; a CPU tensor of any size
  // moves to the call's device (PyTorch lets CPU indices index a device tensor).
  IValue translate_optional_list(const c10::IValue& value, const Device& device,
                                 const ValueName& what) const {
    TensorList list;
    for (const c10::IValue& entry : value.toListRef()) {
      if (!entry.isTensor() || !entry.toTensor().defined()) {
        list.emplace_back();
        continue;
      }
      const at::Tensor& t = entry.toTensor();
      if (on_backplane(t) || t.dim() == 0) {
        IValue translated = translate_tensor(t, device, what);
        list.push_back(translated.tensor());
        continue;
      }
      const at::Tensor host = t.contiguous();
      list.push_back(bp::from_data(host.data_ptr(), *backplane_dtype(host.scalar_type()),
                                   backplane_shape(host.sizes()), device));
    }
    return list;
  }

  // A random op's seed: one 64-bit draw from the call's CPU generator, or from the default
  // one (which torch.manual_seed seeds), so that runs are reproducible (docs/random.md).
  uint64_t drawn_seed(c10::ArrayRef<c10::IValue> arguments) const {
    c10::optional<at::Generator> given;
    if (mapping_.generator >= 0)
      given = arguments[static_cast<size_t>(mapping_.generator)].toOptional<at::Generator>();
    auto* generator = at::get_generator_or_default<at::CPUGeneratorImpl>(
        given, at::detail::getDefaultCPUGenerator());
    const std::lock_guard<std::mutex> lock(generator->mutex_);
    return generator->random64();
  }

  std::vector<IValue> translate(const c10::OperatorHandle& handle,
                                c10::ArrayRef<c10::IValue> arguments, const Device& device) const {
    std::vector<IValue> args(mapping_.sources.size());
    const uint64_t seed = mapping_.draws_seed ? drawn_seed(arguments) : 0;
    for (size_t j = 0; j < mapping_.sources.size(); ++j) {
      const int source = mapping_.sources[j];
      const Argument& wanted = op_.schema.arguments[j];
      if (source == kDrawnSeed || source == kZeroOffset) {
        args[j] = IValue(source == kDrawnSeed ? static_cast<int64_t>(seed) : int64_t{0});
        continue;
      }
      if (source < 0) {
        args[j] = unsourced_argument(arguments, wanted, device);
        continue;
      }
      const c10::IValue& value = arguments[source];
      const ValueName what = argument_name(handle, static_cast<size_t>(source));
      if (value.isNone()) continue;  // None
      args[j] = translate_value(value, wanted.type, device, what);
    }
    return args;
  }

  // A Backplane argument no aten argument feeds. An out= factory (arange.start_out) has no
  // device or dtype argument: the call's device and the out tensor's dtype are what PyTorch
  // uses; anything else takes Backplane's default.
  IValue unsourced_argument(c10::ArrayRef<c10::IValue> arguments, const Argument& wanted,
                            const Device& device) const {
    if (wanted.type.kind == TypeKind::Device) return device;
    if (mapping_.form == CallForm::Out && wanted.type.kind == TypeKind::ScalarType &&
        wanted.name == "dtype") {
      const std::optional<ScalarType> dtype =
          backplane_dtype(arguments[mapping_.written[0]].toTensor().scalar_type());
      if (dtype) return *dtype;
    }
    return wanted.default_value.value_or(IValue());
  }

  IValue translate_value(const c10::IValue& value, const ArgType& type, const Device& device,
                         const ValueName& what) const {
    switch (type.kind) {
      case TypeKind::Tensor:
        if (type.optional_elements) return translate_optional_list(value, device, what);
        if (type.is_list) {
          TensorList list;
          for (const at::Tensor& t : value.toTensorList())
            list.push_back(translate_tensor(t, device, what).tensor());
          return list;
        }
        return translate_tensor(value.toTensor(), device, what);
      case TypeKind::Scalar:
        return backplane_scalar(value.toScalar(), what);
      case TypeKind::Int:
        if (type.is_list) {
          const std::vector<int64_t> ints = value.toIntVector();
          return Shape(ints.begin(), ints.end());
        }
        return value.isSymInt() ? value.toSymInt().expect_int() : value.toInt();
      case TypeKind::Float:
        return value.toDouble();
      case TypeKind::Bool:
        if (type.is_list) {  // Backplane's bool[]: an int list of 0 and 1 (docs/schema.md)
          Shape bits;
          for (const bool b : value.toBoolList()) bits.push_back(b ? 1 : 0);
          return bits;
        }
        return value.toBool();
      case TypeKind::ScalarType: {
        const std::optional<ScalarType> dtype = backplane_dtype(value.toScalarType());
        if (!dtype)
          throw NotTranslatable{fmt::format("{} is {}, which Backplane does not support",
                                            what.str(), c10::toString(value.toScalarType()))};
        return *dtype;
      }
      case TypeKind::String:
        return value.toStringRef();
      case TypeKind::Device: {
        const c10::Device d = value.toDevice();
        if (d.type() != c10::DeviceType::PrivateUse1)
          throw NotTranslatable{fmt::format("{} is {}", what.str(), d.str())};
        return d.has_index() ? backplane_device(d.index()) : device;
      }
    }
    throw NotTranslatable{fmt::format("{} has a type the bridge cannot translate", what.str())};
  }

  std::vector<at::Tensor> call(c10::ArrayRef<c10::IValue> arguments, std::vector<IValue> args,
                               c10::DeviceIndex index) const {
    std::vector<at::Tensor> results;
    switch (mapping_.form) {
      case CallForm::Functional:
        // An output the op leaves undefined (native_layer_norm_backward's masked gradients)
        // is an undefined at::Tensor, None in Python, as PyTorch's kernels return it.
        for (const Tensor& out : bp::call(op_.id, std::move(args)))
          results.push_back(out.defined() ? torch_tensor(out, index) : at::Tensor());
        break;
      case CallForm::Mutating:
        bp::call(op_.id, std::move(args));
        results.push_back(arguments[mapping_.written[0]].toTensor());
        break;
      case CallForm::InPlace: {
        const at::Tensor& self = arguments[mapping_.written[0]].toTensor();
        Tensor target = args[0].tensor();
        Tensor* outs[] = {&target};
        bp::call_out(op_.id, std::move(args), outs, /*in_place=*/true);
        results.push_back(self);
        break;
      }
      case CallForm::Out:
        results = call_out_form(arguments, std::move(args), index);
        break;
    }
    return results;
  }

  // out= forms. An empty out is Backplane's to allocate; it keeps its dtype, as a PyTorch
  // out= tensor does. An out with elements but another shape is resized first, with
  // PyTorch's deprecation warning (resize_outs).
  std::vector<at::Tensor> call_out_form(c10::ArrayRef<c10::IValue> arguments,
                                        std::vector<IValue> args, c10::DeviceIndex index) const {
    std::vector<Tensor> targets(mapping_.written.size());
    std::vector<Tensor*> outs;
    auto view_outs = [&] {
      outs.clear();
      for (size_t k = 0; k < targets.size(); ++k) {
        const at::Tensor& out = arguments[mapping_.written[k]].toTensor();
        targets[k] = out.numel() == 0 ? Tensor() : backplane_view(out, "out");
        outs.push_back(&targets[k]);
      }
    };
    view_outs();
    try {
      bp::call_out(op_.id, args, outs);
    } catch (const Error& error) {
      // Backplane refuses an out of another shape; the retry is the rare case, so the
      // common one pays for no shape computation.
      if (error.code() != ErrorCode::Shape || !resize_outs(arguments, args)) throw;
      view_outs();
      bp::call_out(op_.id, std::move(args), outs);
    }
    std::vector<at::Tensor> results;
    for (size_t k = 0; k < targets.size(); ++k) {
      const at::Tensor& out = arguments[mapping_.written[k]].toTensor();
      if (out.numel() == 0)
        adopt(out, bp::to(targets[k], *backplane_dtype(out.scalar_type())), index);
      results.push_back(out);
    }
    return results;
  }

  // Resizes each out whose shape is not the result's (the meta rule's) as PyTorch does, and
  // returns whether one was. Throws the meta rule's error for inputs that do not fit.
  bool resize_outs(c10::ArrayRef<c10::IValue> arguments, const std::vector<IValue>& args) const {
    std::vector<IValue> probe = args;  // the meta rule canonicalises its arguments in place
    const MetaResult meta = op_.meta(op_, probe);
    bool resized = false;
    for (size_t k = 0; k < mapping_.written.size() && k < meta.outputs.size(); ++k) {
      const at::Tensor& out = arguments[mapping_.written[k]].toTensor();
      const Shape& wanted = meta.outputs[k].sizes;
      if (std::find(wanted.begin(), wanted.end(), kDataDependentSize) != wanted.end()) {
        out.resize_({0});  // nonzero: an empty out takes the result, whatever its shape
        resized = true;
        continue;
      }
      const c10::IntArrayRef sizes(wanted.data(), wanted.size());
      if (out.sizes() == sizes) continue;
      TORCH_WARN("An output with one or more elements was resized since it had shape ", out.sizes(),
                 ", which does not match the required output shape ", sizes,
                 ". This behavior is deprecated, and in a future PyTorch release outputs will "
                 "not be resized unless they have zero elements. You can explicitly reuse an "
                 "out tensor t by resizing it, inplace, to zero elements with t.resize_(0).");
      out.resize_(sizes);
      resized = true;
    }
    return resized;
  }

  OpMapping mapping_;
  const OpDef& op_;
};

}  // namespace

const std::vector<OpMapping>& register_mapped_operators() {
  static std::once_flag once;
  static std::vector<OpMapping> mappings;
  static std::optional<torch::Library> library;
  std::call_once(once, [] {
    mappings = derive_mappings();
    library.emplace(torch::Library::IMPL, "aten", c10::DispatchKey::PrivateUse1, __FILE__,
                    __LINE__);
    for (const OpMapping& mapping : mappings)
      library->impl(mapping.aten_name.c_str(), torch::CppFunction::makeFromBoxedFunctor(
                                                   std::make_unique<GenericKernel>(mapping)));
  });
  return mappings;
}

}  // namespace bp::torch_bridge
