// Kernels called outside their contract (docs/ops.md, "What a kernel receives"): every
// kernel the reference backend and the CPU plugin register is called directly through the C
// ABI, as another host could call it, with arguments the runtime's meta rules never produce:
// an output of the wrong shape, inputs of mixed dtypes, bool and 0-d tensors, dims out of
// range, arguments of the wrong kind. Each call must return a status without crashing or
// touching memory it was not given (the ASan build runs this too); the two violations every
// kernel can detect (an output shape that is not the result's, a dim out of range) must be
// refused. Nothing else reaches these checks: the runtime only sends canonical calls.
#include <backplane/backplane.hpp>
#include <backplane/core/catalog.hpp>
#include <backplane/dispatch/dispatch_key.hpp>
#include <backplane/dispatch/runtime.hpp>

#include "../../dispatch/src/boxing.hpp"
#include "../../dispatch/src/runtime_impl.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

namespace bp::test {
namespace {

// How one malformed call is made: the dtype and shape of each tensor argument (by its
// position among the tensors), the value of int arguments, and the output's shape.
struct Variant {
  const char* name;
  std::function<ScalarType(size_t)> dtype;
  Shape input_shape;
  Shape output_shape;
  int64_t int_value = 0;
  bool wrong_kinds = false;  // every non-tensor argument arrives as a string
};

const std::vector<Variant>& variants() {
  static const std::vector<Variant> v = {
      {"output shape differs", [](size_t) { return ScalarType::Float32; }, {2}, {3}},
      {"mixed input dtypes",
       [](size_t i) { return i % 2 ? ScalarType::Int32 : ScalarType::Float32; },
       {2},
       {2}},
      {"bool tensors", [](size_t) { return ScalarType::Bool; }, {2}, {2}},
      {"f16 tensors", [](size_t) { return ScalarType::Float16; }, {2, 2}, {2, 2}},
      {"0-d tensors", [](size_t) { return ScalarType::Float64; }, {}, {}},
      {"dims out of range", [](size_t) { return ScalarType::Float32; }, {2, 2}, {2, 2}, 99},
      {"arguments of the wrong kind",
       [](size_t) { return ScalarType::Float32; },
       {2},
       {2},
       0,
       true},
  };
  return v;
}

// The boxed arguments of `op` for one variant: tensors of the variant's dtype (index
// arguments i64, all zeros so every index is valid), and the required non-tensor arguments.
std::vector<IValue> make_args(const OpDef& op, const Variant& v, Device device) {
  std::vector<IValue> args;
  size_t tensor_index = 0;
  auto tensor = [&](const std::string& name) {
    const bool index = name == "index" || name == "indices";
    const ScalarType t = index ? ScalarType::Int64 : v.dtype(tensor_index++);
    return zeros(as_ref(v.input_shape), t, device);
  };
  for (const Argument& a : op.schema.arguments) {
    if (a.type.kind == TypeKind::Tensor && a.type.is_list) {
      args.emplace_back(TensorList{tensor(a.name), tensor(a.name)});
    } else if (a.type.kind == TypeKind::Tensor) {
      args.emplace_back(tensor(a.name));
    } else if (a.name == "dim" && a.type.kind == TypeKind::Int) {
      // Given even where it has a default, so "dims out of range" reaches every dim check.
      args.emplace_back(a.type.is_list ? IValue(Shape{v.int_value}) : IValue(v.int_value));
    } else if (a.default_value) {
      args.push_back(*a.default_value);
    } else if (a.type.is_optional) {
      args.emplace_back();
    } else if (a.type.kind == TypeKind::Int && a.type.is_list) {
      args.emplace_back(Shape{v.int_value});
    } else if (a.type.kind == TypeKind::Int) {
      args.emplace_back(v.int_value);
    } else if (a.type.kind == TypeKind::Float) {
      args.emplace_back(1e-5);
    } else if (a.type.kind == TypeKind::Bool) {
      args.emplace_back(false);
    } else if (a.type.kind == TypeKind::String) {
      args.emplace_back(std::string("none"));
    } else {
      args.emplace_back(Scalar(int64_t{1}));
    }
  }
  if (v.wrong_kinds) {
    for (IValue& a : args)
      if (!a.is_tensor() && !a.is_tensor_list()) a = IValue(std::string("not this kind"));
  }
  return args;
}

// Calls the kernel of `op` registered for `device`'s backend with `args` and `outputs`
// appended, exactly as the C ABI delivers a call.
bp_status call_kernel(const OpDef& op, const detail::KernelSlot& slot, Device device,
                      const std::vector<IValue>& args, const std::vector<Tensor>& outputs) {
  detail::CallFrame frame;
  for (const IValue& a : args) frame.add(a);
  for (const Tensor& t : outputs) frame.add_tensor(t);
  bp_call call{};
  call.struct_size = sizeof(bp_call);
  call.op_name = op.name.c_str();
  call.args = frame.values();
  call.nargs = frame.size();
  call.noutputs = outputs.size();
  call.device_index = device.index;
  call.kernel_ctx = slot.ctx;
  return slot.fn(&call);
}

void check_kernels_of(Device device) {
  int kernels = 0;
  for (const OpDef& op : Catalog::get().ops()) {
    const unsigned backend = DispatchKeySet::backend(device.type).highest();
    const detail::KernelSlot& slot = detail::Runtime::get().table(op.id).slots[backend];
    if (!slot.fn) continue;
    ++kernels;
    for (const Variant& v : variants()) {
      CAPTURE(op.name);
      CAPTURE(v.name);
      const std::vector<IValue> args = make_args(op, v, device);
      std::vector<Tensor> outputs;
      for (size_t k = 0; k < op.num_outputs(); ++k)
        outputs.push_back(zeros(as_ref(v.output_shape), v.dtype(0), device));
      const bp_status s = call_kernel(op, slot, device, args, outputs);
      // arange sizes its output from the meta rule, which it trusts: any shape is a range.
      if (std::string_view(v.name) == "output shape differs" && !outputs.empty() &&
          op.name != "arange.start_step") {
        CHECK_MESSAGE(s != BP_OK, op.name << " accepted an output of shape [3] for inputs [2]");
      }
      if (std::string_view(v.name) == "dims out of range" && op.schema.argument_index("dim") >= 0) {
        CHECK_MESSAGE(s != BP_OK, op.name << " accepted dim 99 for a 2-D input");
      }
    }
  }
  CHECK(kernels > 20);  // the backend registered its kernels
}

TEST_CASE("reference kernels refuse calls outside their contract and never crash") {
  check_kernels_of(Device{device_types::Reference, 0});
}

TEST_CASE("CPU plugin kernels refuse calls outside their contract and never crash") {
  static const PluginLoadReport report =
      load_plugin(std::string(BP_PLUGIN_DIR) + "/libbackplane_plugin_cpu.so");
  REQUIRE(report.status == LoadStatus::Loaded);
  check_kernels_of(Device{device_types::CPU, 0});
}

}  // namespace
}  // namespace bp::test
