// Progress of a conformance run on stderr: a one-line bar redrawn in place on a terminal,
// plain lines otherwise (a CI log): one per failing case as it happens and one every 10%.
#pragma once

#include <backplane/conformance/report.hpp>

#include <chrono>
#include <cstdint>

namespace bp::cli {

class ConformanceProgress {
 public:
  ConformanceProgress(int64_t total, bool terminal);
  // Called once per finished case.
  void update(const conformance::CaseResult& result);
  // Clears the bar (terminal) before the final report is printed.
  void finish();

 private:
  void draw();
  int64_t total_;
  bool terminal_;
  int64_t done_ = 0;
  int64_t failures_ = 0;
  int last_decile_ = 0;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace bp::cli
