// The list of cases of a run (plan.hpp).
#include "backplane/conformance/plan.hpp"

#include "backplane/conformance/device_checks.hpp"
#include "backplane/conformance/gradient_checks.hpp"
#include "backplane/conformance/records.hpp"

#include <backplane/core/catalog.hpp>
#include <backplane/dispatch/dispatcher.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <regex>

namespace bp::conformance {
namespace {

// Why the device cannot run cases of `op` in `dtype`, known before running: the device
// cannot store the dtype, or the plugin registers no kernel for a primitive. A kernel's own
// dtype set is not checked here: the dtype a kernel runs in is the op's compute dtype
// (div of two i8 tensors runs an f32 kernel), so an undeclared dtype is found when the case
// runs, as the dispatcher's NotImplemented error, before any plugin code is called.
std::optional<std::string> declared_unsupported(const OpDef& op, ScalarType dtype,
                                                const std::string& backend,
                                                uint32_t device_dtypes) {
  if (!(device_dtypes & (1u << static_cast<unsigned>(dtype))))
    return fmt::format("the device does not declare dtype {}", dtype_name(dtype));
  if (op.kind != OpKind::Primitive) return std::nullopt;
  for (const OpTableEntry& e : op_table(op.name))
    if (e.backend == backend && e.kind == EntryKind::Missing)
      return fmt::format("the plugin registers no kernel for {}", op.name);
  return std::nullopt;
}

// The device-API checks when --ops selects `device_api` (or every op).
void add_device_checks(std::vector<CaseId>& ids, const SuiteOptions& options,
                       const std::optional<CaseId>& only, const std::optional<std::regex>& ops) {
  if (only ? only->op != kDeviceApiOp : ops && !std::regex_search(kDeviceApiOp, *ops)) return;
  for (const DeviceCheck& check : device_checks()) {
    CaseId id = CaseId::make(kDeviceApiOp, kDeviceApiDtype, check.name);
    if (only ? *only == id : (options.full || check.quick)) ids.push_back(std::move(id));
  }
}

// The gradient checks when --ops selects `gradcheck` or a check's backward op (every one is
// quick: small tensors).
void add_gradient_checks(std::vector<CaseId>& ids, const std::optional<CaseId>& only,
                         const std::optional<std::regex>& ops) {
  if (only && only->op != kGradientCheckOp) return;
  const bool family = !ops || std::regex_search(kGradientCheckOp, *ops);
  for (const GradientCheck& check : gradient_checks()) {
    CaseId id = CaseId::make(kGradientCheckOp, kGradientCheckDtype, check.name);
    if (only ? *only == id : family || std::regex_search(check.backward_op, *ops))
      ids.push_back(std::move(id));
  }
}

// The --perf set of one op: in f32 when the op allows it (else its first dtype the
// selection keeps), its first kPerfSamples samples named large_* (the records' large
// sizes), then its other full-suite ones, or its last quick one when it has neither; never
// an error input. A fixed set, the same on every device, so two runs compare case by case.
constexpr size_t kPerfSamples = 3;

void add_perf_cases(std::vector<CaseId>& ids, const OpRecord& record,
                    const std::vector<ScalarType>& dtypes) {
  std::optional<ScalarType> dtype;
  for (ScalarType t : record.dtypes)
    if (dtypes.empty() || std::find(dtypes.begin(), dtypes.end(), t) != dtypes.end())
      if (!dtype || t == ScalarType::Float32) dtype = t;
  if (!dtype) return;
  std::vector<std::string> large, full;
  std::optional<std::string> last_quick;
  for (const Sample& s : record.samples(*dtype)) {
    if (s.expect_error) continue;
    if (s.name.rfind("large", 0) == 0)
      large.push_back(s.name);
    else if (!s.quick)
      full.push_back(s.name);
    else
      last_quick = s.name;
  }
  large.insert(large.end(), full.begin(), full.end());
  if (large.empty() && last_quick) large.push_back(*last_quick);
  large.resize(std::min(large.size(), kPerfSamples));
  for (const std::string& name : large)
    ids.push_back(CaseId::make(record.op, dtype_name(*dtype), name));
}

std::optional<std::regex> ops_regex(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  try {
    return std::regex(*text, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    BP_FAIL(ErrorCode::InvalidArgument, "--ops '{}' is not a valid regular expression: {}", *text,
            e.what());
  }
}

}  // namespace

void parse_shard(std::string_view text, int& index, int& count) {
  const size_t slash = text.find('/');
  auto number = [](std::string_view s, int& out) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty();
  };
  int i = 0;
  int n = 0;
  BP_CHECK(slash != std::string_view::npos && number(text.substr(0, slash), i) &&
               number(text.substr(slash + 1), n) && n >= 1 && i >= 0 && i < n,
           ErrorCode::InvalidArgument,
           "--shard '{}': expected I/N with 0 <= I < N (e.g. 0/4 ... 3/4)", text);
  index = i;
  count = n;
}

std::vector<PlannedCase> plan_cases(const SuiteOptions& options, const Expectations& expectations) {
  const std::optional<std::regex> ops = ops_regex(options.ops);
  std::optional<CaseId> only;
  if (options.case_id) only = CaseId::parse(*options.case_id);
  const DeviceInfo info = device_info(options.device);
  const std::string backend = device_type_name(options.device.type);

  std::vector<CaseId> ids;
  for (const OpRecord& record : op_records()) {
    if (only && only->op != record.op) continue;
    if (!only && ops && !std::regex_search(record.op, *ops)) continue;
    if (options.perf && !only) {
      add_perf_cases(ids, record, options.dtypes);
      continue;
    }
    for (ScalarType dtype : record.dtypes) {
      if (!only && !options.dtypes.empty() &&
          std::find(options.dtypes.begin(), options.dtypes.end(), dtype) == options.dtypes.end())
        continue;
      for (const Sample& s : record.samples(dtype)) {
        CaseId id = CaseId::make(record.op, dtype_name(dtype), s.name);
        if (only ? *only == id : (options.full || s.quick)) ids.push_back(std::move(id));
      }
    }
  }
  if (!options.perf) {  // timing them says nothing about the device's kernels
    add_device_checks(ids, options, only, ops);
    add_gradient_checks(ids, only, ops);
  }
  BP_CHECK(!only || !ids.empty(), ErrorCode::InvalidArgument, "--case '{}': no such case",
           *options.case_id);

  std::vector<PlannedCase> planned;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (static_cast<int>(i % static_cast<size_t>(options.shard_count)) != options.shard_index)
      continue;
    PlannedCase c{std::move(ids[i]), static_cast<int64_t>(i), std::nullopt, {}, std::nullopt};
    c.expectation = expectations.match(c.id);
    c.nondeterministic = expectations.nondeterminism(c.id);
    if (c.expectation.kind == ExpectationKind::Unsupported) {
      c.unsupported = fmt::format("{} ({})", c.expectation.reason, c.expectation.where());
    } else if (c.id.op == kGradientCheckOp) {
      // The backward op in f64 is what the device must have.
      c.unsupported =
          declared_unsupported(Catalog::get().at(find_gradient_check(c.id.sample)->backward_op),
                               ScalarType::Float64, backend, info.dtypes);
    } else if (c.id.op != kDeviceApiOp) {
      c.unsupported = declared_unsupported(Catalog::get().at(c.id.op), *parse_dtype(c.id.dtype),
                                           backend, info.dtypes);
    }
    planned.push_back(std::move(c));
  }
  return planned;
}

}  // namespace bp::conformance
