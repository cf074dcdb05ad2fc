// Progress display of `backplane conformance` (conformance_progress.hpp).
#include "conformance_progress.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <string>

namespace bp::cli {

ConformanceProgress::ConformanceProgress(int64_t total, bool terminal)
    : total_(total), terminal_(terminal) {}

void ConformanceProgress::update(const conformance::CaseResult& r) {
  ++done_;
  if (conformance::is_failure(r.status)) {
    ++failures_;
    if (terminal_) std::fputs("\r\033[K", stderr);
    fmt::print(stderr, "{} {}: {}\n", conformance::to_string(r.status), r.id, r.message);
  }
  if (terminal_) {
    // Redraw at most 20 times a second: a fast suite finishes thousands of cases a second.
    const auto now = std::chrono::steady_clock::now();
    if (done_ == total_ || now - last_draw_ > std::chrono::milliseconds(50)) {
      last_draw_ = now;
      draw();
    }
    return;
  }
  const int decile = total_ > 0 ? static_cast<int>(done_ * 10 / total_) : 10;
  if (decile > last_decile_) {
    last_decile_ = decile;
    fmt::print(stderr, "progress: {}/{} cases, {} failing\n", done_, total_, failures_);
  }
}

void ConformanceProgress::draw() {
  constexpr int kWidth = 30;
  const int filled = total_ > 0 ? static_cast<int>(done_ * kWidth / total_) : kWidth;
  fmt::print(stderr, "\r[{}{}] {}/{} cases, {} failing", std::string(filled, '#'),
             std::string(kWidth - filled, '.'), done_, total_, failures_);
  std::fflush(stderr);
}

void ConformanceProgress::finish() {
  if (terminal_ && total_ > 0) std::fputs("\r\033[K", stderr);
}

}  // namespace bp::cli
