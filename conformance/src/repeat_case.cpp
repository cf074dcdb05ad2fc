// Cases run again for timing and determinism (repeat_case.hpp).
#include "backplane/conformance/repeat_case.hpp"

#include "backplane/conformance/inputs.hpp"
#include "backplane/conformance/run_case.hpp"

#include <backplane/core/error.hpp>
#include <backplane/dispatch/dispatcher.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

namespace bp::conformance {
namespace {

// The case's arguments on `device`: tensors (and the tensors of lists) copied, a Device
// argument (factories) replaced by the device under test. Plain copies, not run_case's
// guarded buffers: nothing is checked for stray writes here (run_case did that), and the
// guards' set-up would be timed with the op.
std::vector<IValue> on_device(const std::vector<IValue>& args, Device device) {
  std::vector<IValue> out;
  out.reserve(args.size());
  for (const IValue& a : args) {
    if (a.is_tensor() && a.tensor().defined()) {
      out.emplace_back(to(a.tensor(), device));
    } else if (a.is_tensor_list()) {
      TensorList list;
      for (const Tensor& t : a.tensor_list()) list.push_back(t.defined() ? to(t, device) : t);
      out.emplace_back(std::move(list));
    } else if (a.is_device()) {
      out.emplace_back(device);
    } else {
      out.push_back(a);
    }
  }
  return out;
}

// One call of the op on fresh device copies, its outputs read back to the host.
std::vector<Tensor> run_once(const CaseInputs& in, Device device, double* seconds) {
  std::vector<IValue> args = on_device(in.args, device);
  const auto start = std::chrono::steady_clock::now();
  std::vector<Tensor> outs = call(in.op->id, std::move(args));
  std::vector<Tensor> host;
  for (const Tensor& t : outs) host.push_back(contiguous(to(t, kReferenceDevice)));
  if (seconds)
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return host;
}

CaseInputs inputs_to_repeat(const CaseId& id, uint64_t suite_seed) {
  CaseInputs in = make_case_inputs(id, suite_seed);
  BP_CHECK(!in.expect_error, ErrorCode::InvalidArgument,
           "case {} is an error input: there is nothing to time or repeat", id.str());
  return in;
}

// Compares output `index` of two runs into `r`.
void compare_output(size_t index, const Tensor& a, const Tensor& b, Repeatability& r) {
  const int64_t n = a.numel();
  std::vector<uint8_t> bytes_a(static_cast<size_t>(n) * a.element_size());
  std::vector<uint8_t> bytes_b(bytes_a.size());
  copy_to_host(a, bytes_a.data(), a.dtype());
  copy_to_host(b, bytes_b.data(), b.dtype());
  if (bytes_a == bytes_b) return;
  r.bitwise_equal = false;
  const std::vector<double> va = to_vector<double>(a), vb = to_vector<double>(b);
  for (size_t i = 0; i < va.size(); ++i) {
    const bool same_bits = std::memcmp(&bytes_a[i * a.element_size()],
                                       &bytes_b[i * a.element_size()], a.element_size()) == 0;
    if (same_bits) continue;
    if (r.first_difference.empty())
      r.first_difference = fmt::format("output {} [{}]: {} then {}", index, i, va[i], vb[i]);
    const double diff = std::isnan(va[i]) && std::isnan(vb[i]) ? 0.0 : std::fabs(va[i] - vb[i]);
    r.max_abs_diff = std::max(r.max_abs_diff, std::isnan(diff) ? INFINITY : diff);
    if (va[i] != 0.0) r.max_rel_diff = std::max(r.max_rel_diff, diff / std::fabs(va[i]));
  }
}

}  // namespace

CaseTiming time_case(const CaseId& id, Device device, uint64_t suite_seed, int repetitions) {
  const CaseInputs in = inputs_to_repeat(id, suite_seed);
  (void)run_once(in, device, nullptr);  // warm-up: caches, lazily built kernels, allocations
  std::vector<double> times(static_cast<size_t>(std::max(repetitions, 1)));
  for (double& t : times) (void)run_once(in, device, &t);
  std::sort(times.begin(), times.end());
  const size_t mid = times.size() / 2;
  const double median = times.size() % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  return {median, static_cast<int>(times.size())};
}

Repeatability repeat_case(const CaseId& id, Device device, uint64_t suite_seed) {
  const CaseInputs in = inputs_to_repeat(id, suite_seed);
  const std::vector<Tensor> first = run_once(in, device, nullptr);
  const std::vector<Tensor> second = run_once(in, device, nullptr);
  Repeatability r;
  BP_CHECK(first.size() == second.size(), ErrorCode::Internal,
           "case {}: two runs gave {} and {} outputs", id.str(), first.size(), second.size());
  for (size_t i = 0; i < first.size(); ++i) {
    if (first[i].sizes() != second[i].sizes()) {
      r.bitwise_equal = false;
      r.max_abs_diff = INFINITY;
      r.first_difference = fmt::format("output {}: shapes differ between the runs", i);
      continue;
    }
    compare_output(i, first[i], second[i], r);
  }
  return r;
}

}  // namespace bp::conformance
