// One conformance case, in this process (run_case.hpp).
#include "backplane/conformance/run_case.hpp"

#include "backplane/conformance/compare.hpp"
#include "backplane/conformance/device_checks.hpp"
#include "backplane/conformance/gradient_checks.hpp"
#include "backplane/conformance/records.hpp"
#include "backplane/conformance/tolerance.hpp"
#include "guarded_buffer.hpp"
#include "written_args.hpp"

#include <backplane/core/catalog.hpp>
#include <backplane/dispatch/dispatcher.hpp>
#include <backplane/dispatch/runtime.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

namespace bp::conformance {
namespace {

using detail::GuardedBuffer;

// FNV-1a over the id, then splitmix64 with the seed: cheap, stable across platforms and
// compilers (std::hash is neither).
uint64_t mix(uint64_t seed, std::string_view text) {
  uint64_t h = 1469598103934665603ull;
  for (char c : text) {
    h ^= static_cast<uint8_t>(c);
    h *= 1099511628211ull;
  }
  uint64_t z = seed + 0x9e3779b97f4a7c15ull + h;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

const Sample& find_sample(const CaseId& id, std::vector<Sample>& storage) {
  const OpRecord* record = find_record(id.op);
  BP_CHECK(record != nullptr, ErrorCode::InvalidArgument,
           "case '{}': no conformance record for op '{}'", id.str(), id.op);
  const std::optional<ScalarType> dtype = parse_dtype(id.dtype);
  BP_CHECK(dtype && std::find(record->dtypes.begin(), record->dtypes.end(), *dtype) !=
                        record->dtypes.end(),
           ErrorCode::InvalidArgument, "case '{}': op '{}' has no cases of dtype '{}'", id.str(),
           id.op, id.dtype);
  storage = record->samples(*dtype);
  for (const Sample& s : storage)
    if (s.name == id.sample) return s;
  BP_FAIL(ErrorCode::InvalidArgument, "case '{}': op '{}' has no sample '{}' for dtype {}",
          id.str(), id.op, id.sample, id.dtype);
}

std::string argument_name(const OpDef& op, size_t i) {
  return i < op.schema.arguments.size() ? op.schema.arguments[i].name : fmt::format("#{}", i);
}

// The device side of a call: every tensor copied into a guarded buffer on `device`, every
// Device argument replaced by `device`.
struct DeviceArgs {
  std::vector<IValue> args;
  struct Input {
    std::string what;
    bool written = false;
    GuardedBuffer buffer;
    int arg_index = -1;  // the argument it is (-1 for an element of a Tensor[])
  };
  std::vector<Input> inputs;
};

DeviceArgs to_device(const OpDef& op, const std::vector<IValue>& ref_args, Device device) {
  DeviceArgs out;
  out.inputs.reserve(ref_args.size() * 2);
  for (size_t i = 0; i < ref_args.size(); ++i) {
    const IValue& a = ref_args[i];
    const std::string name = argument_name(op, i);
    const bool written = writes_argument(op, i);
    if (a.is_tensor() && a.tensor().defined()) {
      out.inputs.push_back({fmt::format("argument '{}'", name), written,
                            GuardedBuffer::copy_of(a.tensor(), device), static_cast<int>(i)});
      out.args.emplace_back(out.inputs.back().buffer.tensor());
    } else if (a.is_tensor_list()) {
      TensorList list;
      for (size_t k = 0; k < a.tensor_list().size(); ++k) {
        if (!a.tensor_list()[k].defined()) {  // a Tensor?[] None
          list.emplace_back();
          continue;
        }
        out.inputs.push_back({fmt::format("argument '{}'[{}]", name, k), false,
                              GuardedBuffer::copy_of(a.tensor_list()[k], device)});
        list.push_back(out.inputs.back().buffer.tensor());
      }
      out.args.emplace_back(std::move(list));
    } else if (a.is_device()) {
      out.args.emplace_back(device);
    } else {
      out.args.push_back(a);
    }
  }
  return out;
}

// Root mean square of a tensor's finite values (0 when it has none).
double rms(const Tensor& t) {
  if (t.numel() == 0 || t.dtype() == ScalarType::Bool) return 0.0;
  double sum = 0.0;
  int64_t n = 0;
  for (double v : to_vector<double>(t)) {
    if (!std::isfinite(v)) continue;
    sum += v * v;
    ++n;
  }
  return n == 0 ? 0.0 : std::sqrt(sum / static_cast<double>(n));
}

double input_scale(const OpDef& op, const std::vector<IValue>& args) {
  std::vector<double> values;
  for (const IValue& a : args)
    if (a.is_tensor() && a.tensor().defined()) values.push_back(rms(a.tensor()));
  return input_scale_for(op.name, std::move(values));
}

CaseRun with_kind(CaseRun::Kind kind, std::string message) {
  CaseRun run;
  run.kind = kind;
  run.message = std::move(message);
  return run;
}

CaseRun failed(std::string message) {
  return with_kind(CaseRun::Kind::Failed, std::move(message));
}

// A call the device could not make for want of a kernel (ErrorCode::NotImplemented; the
// dispatcher's message starts with the name of the op that has none). Unsupported when that
// op is the one under test, or when the plugin has no kernel of its own for the op under test
// (a composite whose decomposition needs a primitive the plugin lacks: the device does not
// run the op). Blocked when the plugin claims the op but another op the call needs on the
// device has no kernel there (copy_ for an input's dtype conversion): the plugin's kernel
// never ran, so nothing was compared, and the run must not pass silently.
CaseRun not_implemented(const OpDef& op, Device device, const Error& e, std::string_view stage) {
  const std::string_view message = e.what();
  const std::string_view prefix = message.substr(0, message.find(": "));
  const OpDef* needed = prefix.size() < message.size() ? Catalog::get().find(prefix) : nullptr;
  bool claimed = false;
  for (const OpTableEntry& entry : op_table(op.name))
    claimed = claimed ||
              (entry.backend == device_type_name(device.type) && entry.kind == EntryKind::Kernel);
  if (needed && needed != &op && claimed)
    return with_kind(CaseRun::Kind::Blocked,
                     fmt::format("blocked: needs {} ({}; {}, so the plugin's {} kernel was not "
                                 "compared)",
                                 needed->name, message, stage, op.name));
  return with_kind(CaseRun::Kind::Unsupported, std::string(message));
}

CaseRun run_device_check(const CaseId& id, Device device) {
  for (const DeviceCheck& check : device_checks()) {
    if (check.name != id.sample) continue;
    std::string message = check.run(raw_device_api(device));
    return message.empty() ? CaseRun{} : failed(std::move(message));
  }
  BP_FAIL(ErrorCode::InvalidArgument, "case '{}': no device check named '{}'", id.str(), id.sample);
}

// A gradient check (gradient_checks.hpp): the backward op on `device` in f64.
CaseRun run_gradient_case(const CaseId& id, Device device, uint64_t suite_seed) {
  const GradientCheck* check = find_gradient_check(id.sample);
  BP_CHECK(check != nullptr, ErrorCode::InvalidArgument, "case '{}': no gradient check named '{}'",
           id.str(), id.sample);
  if (!(device_info(device).dtypes & (1u << static_cast<unsigned>(ScalarType::Float64))))
    return with_kind(CaseRun::Kind::Unsupported,
                     fmt::format("device {} does not support dtype f64", device.str()));
  try {
    std::string message = run_gradient_check(*check, device, case_seed(suite_seed, id));
    return message.empty() ? CaseRun{} : failed(std::move(message));
  } catch (const Error& e) {
    if (e.code() == ErrorCode::NotImplemented)
      return not_implemented(Catalog::get().at(check->backward_op), device, e,
                             "running the backward op");
    return failed(fmt::format("{}: {}", check->backward_op, e.what()));
  }
}

CaseRun run_error_sample(const OpDef& op, const Sample& sample, const std::vector<IValue>& ref_args,
                         Device device) {
  const std::string& expected = *sample.expect_error;
  try {
    (void)call(op.id, ref_args);
    return failed(
        fmt::format("suite bug: the reference backend accepted this error input "
                    "(expected an error containing '{}')",
                    expected));
  } catch (const Error& e) {
    if (std::string_view(e.what()).find(expected) == std::string_view::npos)
      return failed(
          fmt::format("suite bug: the reference backend's error '{}' does not contain "
                      "'{}'",
                      e.what(), expected));
  }
  DeviceArgs dev = to_device(op, ref_args, device);
  try {
    (void)call(op.id, dev.args);
  } catch (const Error& e) {
    if (std::string_view(e.what()).find(expected) != std::string_view::npos) return CaseRun{};
    // A device without a kernel the call needs (a composite's primitive) stops before the
    // check that rejects the input: the rejection cannot be tested there.
    if (e.code() == ErrorCode::NotImplemented)
      return not_implemented(op, device, e, "calling it with an input it must reject");
    return failed(
        fmt::format("rejected the input with another error: '{}' (expected one "
                    "containing '{}')",
                    e.what(), expected));
  } catch (const std::exception& e) {
    return failed(fmt::format("rejected the input with a non-Backplane exception: {}", e.what()));
  }
  return failed(
      fmt::format("accepted an input every backend must reject (expected an error "
                  "containing '{}')",
                  expected));
}

// The values the device computed, read back through the device API (GuardedBuffer::
// read_back), never through one of its own kernels: the guarded outputs of an out-variant
// call, or the argument an in-place op wrote. On the reference device, like `want`.
std::vector<Tensor> read_back(const OpDef& op, const DeviceArgs& dev,
                              const std::vector<GuardedBuffer>& outs,
                              const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  std::vector<Tensor> values;
  for (size_t i = 0; i < got.size(); ++i) {
    const Device host = i < want.size() ? want[i].device() : kReferenceDevice;
    if (i < outs.size()) {
      values.push_back(outs[i].read_back(host));
      continue;
    }
    const DeviceArgs::Input* written = nullptr;
    for (const DeviceArgs::Input& in : dev.inputs)
      if (in.written) written = &in;
    BP_CHECK(i == 0 && written != nullptr, ErrorCode::Internal,
             "{}: output {} is neither a guarded output nor the argument the op writes", op.name,
             i);
    values.push_back(written->buffer.read_back(host));
  }
  return values;
}

// ---- explanations (--verbose) ------------------------------------------------------------

// A tensor's values as text, in row-major order (exact: integers as int64).
std::vector<std::string> values_text(const Tensor& t) {
  std::vector<std::string> out;
  if (is_floating(t.dtype())) {
    for (double v : to_vector<double>(t))
      out.push_back(std::isnan(v) ? "nan" : fmt::format("{}", v));
  } else {
    for (int64_t v : to_vector<int64_t>(t)) out.push_back(fmt::format("{}", v));
  }
  return out;
}

std::string tensor_text(const Tensor& t) {
  constexpr int64_t kShown = 16;
  std::string values;
  const std::vector<std::string> all = values_text(t);
  for (int64_t i = 0; i < std::min(t.numel(), kShown); ++i)
    values += (i ? ", " : "") + all[static_cast<size_t>(i)];
  return fmt::format("{} shape {} strides {} offset {}: [{}{}]", dtype_name(t.dtype()),
                     shape_str(t.sizes()), shape_str(t.strides()), t.storage_offset(), values,
                     t.numel() > kShown ? fmt::format(", ... ({} values)", t.numel()) : "");
}

std::string ivalue_text(const IValue& v) {
  if (v.is_tensor()) return v.tensor().defined() ? tensor_text(v.tensor()) : "None (Tensor?)";
  if (v.is_tensor_list()) {
    std::string out = fmt::format("{} tensors", v.tensor_list().size());
    for (size_t k = 0; k < v.tensor_list().size(); ++k)
      out += fmt::format("\n      [{}] {}", k,
                         v.tensor_list()[k].defined() ? tensor_text(v.tensor_list()[k]) : "None");
    return out;
  }
  if (v.is_none()) return "None";
  if (v.is_scalar()) return v.scalar().str();
  if (v.is_int()) return fmt::format("{}", v.to_int());
  if (v.is_int_list()) return shape_str(v.int_list());
  if (v.is_double()) return fmt::format("{}", v.to_double());
  if (v.is_bool()) return v.to_bool() ? "true" : "false";
  if (v.is_dtype()) return std::string(dtype_name(v.dtype()));
  if (v.is_string()) return "'" + v.string() + "'";
  if (v.is_device()) return v.device().str() + " (the device under test)";
  return std::string(v.kind_name());
}

// Output `i` of the device and of the reference, row by row around `center` (the first
// mismatch), or from the start when they agree.
std::string output_window(size_t i, const Tensor& got, const Tensor& want, int64_t center) {
  constexpr int64_t kRadius = 4;
  std::string out = fmt::format(
      "  output {}: {} shape {}{}\n", i, dtype_name(want.dtype()), shape_str(want.sizes()),
      center >= 0 ? fmt::format(", first mismatch at {}", multi_index(center, want.sizes()))
                  : ", matches the reference");
  if (got.sizes() != want.sizes() || got.dtype() != want.dtype() || want.numel() == 0) return out;
  const std::vector<std::string> g = values_text(got), w = values_text(want);
  const int64_t from = std::max<int64_t>(0, (center >= 0 ? center : 0) - kRadius);
  const int64_t to = std::min(want.numel(), from + 2 * kRadius + 1);
  out += fmt::format("    {:<16} {:>24} {:>24}\n", "index", "device", "reference");
  for (int64_t k = from; k < to; ++k)
    out += fmt::format("    {:<16} {:>24} {:>24}{}\n", multi_index(k, want.sizes()),
                       g[static_cast<size_t>(k)], w[static_cast<size_t>(k)],
                       k == center ? "  <- first mismatch" : "");
  return out;
}

// The arguments written without a mark in the schema (written_args.hpp), after the call,
// against the reference's (`ref_args`, which the reference's call wrote).
void check_unmarked_writes(const OpDef& op, const Sample& sample, const DeviceArgs& dev,
                           const std::vector<IValue>& ref_args, double scale,
                           const std::function<void(std::string)>& fail) {
  for (const DeviceArgs::Input& in : dev.inputs) {
    if (in.arg_index < 0 || !writes_unmarked(op, static_cast<size_t>(in.arg_index))) continue;
    const Tensor& want = ref_args[static_cast<size_t>(in.arg_index)].tensor();
    const Tolerance tol = tolerance_for(op.name, want.dtype(), sample.reduced_elements, scale);
    const CompareResult c = compare(in.buffer.read_back(want.device()), want, tol);
    if (!c.ok) fail(fmt::format("{}, written in place: {}", in.what, c.message));
  }
}

// Guards, untouched inputs, output layout and values, after the device ran the op.
CaseRun check_results(const OpDef& op, const Sample& sample, const DeviceArgs& dev,
                      const std::vector<GuardedBuffer>& outs, const std::vector<Tensor>& got,
                      const std::vector<Tensor>& want, const std::vector<IValue>& ref_args,
                      double scale, bool explain) {
  CaseRun run;
  run.compared = true;
  auto fail = [&](std::string message) {
    if (run.kind == CaseRun::Kind::Passed) {
      run.kind = CaseRun::Kind::Failed;
      run.message = std::move(message);
    }
  };
  // Out-of-bounds writes first: they explain any wrong value that follows.
  for (size_t i = 0; i < outs.size(); ++i) {
    const std::string what = fmt::format("output {}", i);
    if (std::string m = outs[i].check(what, true); !m.empty()) fail(std::move(m));
  }
  for (const DeviceArgs::Input& in : dev.inputs)
    if (std::string m = in.buffer.check(in.what, in.written); !m.empty()) fail(std::move(m));

  if (got.size() != want.size())
    fail(fmt::format("returned {} output(s), the reference {}", got.size(), want.size()));
  const std::vector<Tensor> values = read_back(op, dev, outs, got, want);
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    if (i < outs.size()) {
      if (std::string m = check_out_layout(got[i], want[i].sizes(), outs[i].tensor().strides());
          !m.empty())
        fail(fmt::format("output {}: {}", i, m));
    }
    const Tolerance tol = tolerance_for(op.name, want[i].dtype(), sample.reduced_elements, scale);
    const CompareResult c = compare(values[i], want[i], tol);
    if (explain) run.details += output_window(i, values[i], want[i], c.first_bad_index);
    run.max_abs_err = std::max(run.max_abs_err, c.max_abs_err);
    run.max_ulp = std::max(run.max_ulp, c.max_ulp);
    if (!c.ok) fail(want.size() > 1 ? fmt::format("output {}: {}", i, c.message) : c.message);
  }
  check_unmarked_writes(op, sample, dev, ref_args, scale, fail);
  return run;
}

}  // namespace

uint64_t case_seed(uint64_t suite_seed, const CaseId& id) {
  return mix(suite_seed, id.str());
}

CaseInputs make_case_inputs(const CaseId& id, uint64_t suite_seed) {
  std::vector<Sample> samples;
  const Sample& sample = find_sample(id, samples);
  CaseInputs in;
  in.op = &Catalog::get().at(id.op);
  InputMaker maker(case_seed(suite_seed, id));
  in.args = sample.make(maker);
  for (size_t i = 0; i < in.args.size(); ++i) in.argument_names.push_back(argument_name(*in.op, i));
  in.expect_error = sample.expect_error;
  if (!in.expect_error) {
    // The reference's outputs give the dtypes; a mutating op writes into its argument, so
    // it runs on copies.
    std::vector<IValue> copies;
    for (const IValue& a : in.args)
      copies.push_back(a.is_tensor() && a.tensor().defined() ? IValue(clone(a.tensor())) : a);
    const double scale = input_scale(*in.op, in.args);
    for (const Tensor& w : call(in.op->id, std::move(copies))) {
      in.tolerances.push_back(
          tolerance_for(in.op->name, w.dtype(), sample.reduced_elements, scale));
      in.output_dtypes.push_back(w.dtype());
    }
  }
  return in;
}

std::string describe_inputs(const CaseId& id, uint64_t suite_seed) {
  if (id.op == kDeviceApiOp) return "  (a device-API check: no tensor inputs)\n";
  if (id.op == kGradientCheckOp)
    return "  (a gradient check: the backward op on the device, in f64, against central "
           "differences of the reference's forward op; docs/conformance.md)\n";
  std::vector<Sample> samples;
  const Sample& sample = find_sample(id, samples);
  const OpDef& op = Catalog::get().at(id.op);
  InputMaker maker(case_seed(suite_seed, id));
  const std::vector<IValue> args = sample.make(maker);
  std::string out = fmt::format("  {}\n", op.schema.str());
  for (size_t i = 0; i < args.size(); ++i)
    out += fmt::format("  argument '{}': {}\n", argument_name(op, i), ivalue_text(args[i]));
  if (sample.expect_error)
    out += fmt::format(
        "  (an error input: every backend must reject it with a message "
        "containing '{}')\n",
        *sample.expect_error);
  return out;
}

CaseRun run_case(const CaseId& id, Device device, uint64_t suite_seed, bool explain) {
  if (id.op == kDeviceApiOp) return run_device_check(id, device);
  if (id.op == kGradientCheckOp) return run_gradient_case(id, device, suite_seed);

  std::vector<Sample> samples;
  const Sample& sample = find_sample(id, samples);
  const OpDef& op = Catalog::get().at(id.op);
  const ScalarType case_dtype = *parse_dtype(id.dtype);  // find_sample checked it
  const DeviceInfo info = device_info(device);
  if (!(info.dtypes & (1u << static_cast<unsigned>(case_dtype))))
    return with_kind(CaseRun::Kind::Unsupported,
                     fmt::format("device {} does not support dtype {}", device.str(), id.dtype));

  InputMaker maker(case_seed(suite_seed, id));
  std::vector<IValue> ref_args = sample.make(maker);
  if (sample.expect_error) return run_error_sample(op, sample, ref_args, device);

  // The device copies first: a mutating op changes its reference argument in place.
  DeviceArgs dev = to_device(op, ref_args, device);
  const double scale = input_scale(op, ref_args);
  std::vector<Tensor> want;
  try {
    want = call(op.id, ref_args);
  } catch (const Error& e) {
    return failed(
        fmt::format("suite bug: the reference backend rejected the sample: {}", e.what()));
  }

  std::vector<GuardedBuffer> outs;
  std::vector<Tensor> got;
  try {
    if (op.mutated_arg >= 0) {
      got = call(op.id, dev.args);
    } else {
      std::vector<Tensor*> out_ptrs;
      outs.reserve(want.size());
      for (const Tensor& w : want)
        outs.push_back(GuardedBuffer::fresh(w.sizes(), w.dtype(), device));
      for (GuardedBuffer& o : outs) out_ptrs.push_back(&o.tensor());
      call_out(op.id, dev.args, out_ptrs);
      for (size_t i = 0; i < outs.size(); ++i) got.push_back(outs[i].tensor());
    }
  } catch (const Error& e) {
    if (e.code() == ErrorCode::NotImplemented)
      return not_implemented(op, device, e, "running the case");
    return failed(fmt::format("raised an error the reference does not: {}", e.what()));
  } catch (const std::exception& e) {
    return failed(fmt::format("raised a non-Backplane exception: {}", e.what()));
  }

  return check_results(op, sample, dev, outs, got, want, ref_args, scale, explain);
}

}  // namespace bp::conformance
