// The run's context for a certificate (certificate_context.hpp).
#include "certificate_context.hpp"

#include <backplane/backplane.hpp>

#include <fmt/format.h>

#include <array>
#include <ctime>

namespace bp::cli {
namespace cf = conformance;

std::string plan_sha256(const std::vector<cf::PlannedCase>& plan) {
  std::string ids;
  for (const cf::PlannedCase& c : plan) ids += c.id.str() + "\n";
  return cf::sha256_hex(ids);
}

cf::CertificateContext certificate_context(const cf::Report& report,
                                           const std::vector<cf::PlannedCase>& plan,
                                           const RunSelection& selection) {
  cf::CertificateContext c;
  for (const PluginLoadReport& r : plugin_reports())
    if (!report.plugin_path.empty() && r.path == report.plugin_path &&
        r.status == LoadStatus::Loaded) {
      c.plugin_name = r.plugin;
      c.plugin_version = r.version;
      c.plugin_vendor = r.vendor;
      c.plugin_abi = fmt::format("{}.{}", r.abi_major, r.abi_minor);
      c.plugin_file = r.path;
    }
  if (c.plugin_name.empty()) c.plugin_name = report.plugin;  // a built-in backend
  const RuntimeInfo runtime = runtime_info();
  c.runtime_version = runtime.version;
  c.runtime_abi = fmt::format("{}.{}", runtime.abi_major, runtime.abi_minor);
  // The suite is compiled into the runtime: its version is the runtime's, and the plan's
  // fingerprint tells two builds of one version apart when their cases differ.
  c.suite_version = runtime.version;
  c.plan_sha256 = plan_sha256(plan);
  c.ops = selection.ops;
  c.dtypes = selection.dtypes;
  c.expectations = selection.expectations;
  c.isa = selection.isa;
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  c.created = text.data();
  return c;
}

}  // namespace bp::cli
