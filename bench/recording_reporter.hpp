// A Google Benchmark console reporter that also keeps each benchmark's figure, for the
// closing tables of bench/allocating_add.cpp and bench/opencl.cpp: the median and the best
// repetition of the real time per iteration (seconds), by "function/arg" name. The figure
// comes from the median and min aggregates when only those are reported
// (--benchmark_display_aggregates_only; a benchmark registers "min" with
// ComputeStatistics("min", min_of)), else from the repetitions themselves.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace bp::bench {

// NaN when the benchmark did not run (filtered out).
struct Figure {
  double median = NAN;
  double best = NAN;  // the repetition least disturbed by the other work of a shared machine
};

inline double median_of(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}
inline double min_of(const std::vector<double>& v) {
  return v.empty() ? NAN : *std::min_element(v.begin(), v.end());
}

class RecordingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.error_occurred || r.iterations == 0) continue;
      std::string name = r.run_name.function_name;
      if (!r.run_name.args.empty()) name += "/" + r.run_name.args;
      const double per_iteration = r.real_accumulated_time / static_cast<double>(r.iterations);
      if (r.run_type == Run::RT_Iteration)
        repetitions_[name].push_back(per_iteration);
      else if (r.aggregate_name == "median")
        aggregates_[name].median = per_iteration;
      else if (r.aggregate_name == "min")
        aggregates_[name].best = per_iteration;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  Figure figure(const std::string& name) const {
    if (auto a = aggregates_.find(name); a != aggregates_.end()) return a->second;
    if (auto r = repetitions_.find(name); r != repetitions_.end())
      return {median_of(r->second), min_of(r->second)};
    return {};
  }

 private:
  std::map<std::string, std::vector<double>> repetitions_;
  std::map<std::string, Figure> aggregates_;
};

}  // namespace bp::bench
