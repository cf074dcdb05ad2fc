// Worker processes with per-case timeouts (worker_pool.hpp).
#include "backplane/conformance/worker_pool.hpp"

#include "backplane/conformance/device_checks.hpp"
#include "backplane/conformance/gradient_checks.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstring>
#include <deque>
#include <iostream>
#include <limits>
#include <optional>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace bp::conformance {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kOutputTail = 4096;  // bytes of a worker's output kept for a crash report

struct Worker {
  pid_t pid = -1;
  int to_child = -1;  // the worker's stdin
  int results = -1;   // the worker's fd 3
  int output = -1;    // the worker's stdout + stderr
  bool ready = false;
  std::string line;  // partial result line
  std::string tail;  // last output bytes of the current case
  std::optional<size_t> current;
  Clock::time_point started;
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

Worker spawn(const std::vector<std::string>& argv) {
  int in[2], res[2], out[2];
  BP_CHECK(
      ::pipe2(in, O_CLOEXEC) == 0 && ::pipe2(res, O_CLOEXEC) == 0 && ::pipe2(out, O_CLOEXEC) == 0,
      ErrorCode::Internal, "conformance: cannot create pipes for a worker: {}",
      std::strerror(errno));
  // Everything the child needs is prepared before fork: after it only async-signal-safe
  // calls are allowed (the parent may have threads, e.g. a plugin's thread pool).
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  BP_CHECK(pid >= 0, ErrorCode::Internal, "conformance: fork failed: {}", std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);  // own process group: a timeout kills the worker's children too
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(out[1], 2);
    ::dup2(res[1], 3);
    ::execv(args[0], args.data());
    static const char msg[] = "conformance worker: exec failed\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so a kill right after fork finds the group
  ::close(in[0]);
  ::close(res[1]);
  ::close(out[1]);
  // Non-blocking reads: poll says which pipe has data, and a respawned worker's pipes may be
  // read in the same round as its predecessor's.
  ::fcntl(res[0], F_SETFL, O_NONBLOCK);
  ::fcntl(out[0], F_SETFL, O_NONBLOCK);
  Worker w;
  w.pid = pid;
  w.to_child = in[1];
  w.results = res[0];
  w.output = out[0];
  return w;
}

}  // namespace

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(sig);
    return fmt::format("killed by signal SIG{} ({})", abbrev ? abbrev : "?", strsignal(sig));
  }
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  return fmt::format("ended with wait status {}", status);
}

namespace {

// Kills the worker's process group and reaps it; returns how it ended.
std::string reap(Worker& w, bool kill_first) {
  if (kill_first) ::kill(-w.pid, SIGKILL);
  int status = 0;
  while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::kill(-w.pid, SIGKILL);  // children the worker left behind
  close_fd(w.to_child);
  close_fd(w.results);
  close_fd(w.output);
  return describe_wait_status(status);
}

std::string with_tail(std::string message, const std::string& tail) {
  if (tail.empty()) return message;
  // The last few lines are what explains a crash (an assertion, a sanitizer report).
  return fmt::format("{}; last output: {}", message, tail);
}

void append_tail(std::string& tail, const char* data, size_t n) {
  tail.append(data, n);
  if (tail.size() > kOutputTail) tail.erase(0, tail.size() - kOutputTail);
}

bool send_case(Worker& w, const CaseId& id) {
  const std::string line = id.str() + "\n";
  return ::write(w.to_child, line.data(), line.size()) == static_cast<ssize_t>(line.size());
}

CaseRun parse_result(const nlohmann::json& j) {
  CaseRun run;
  const std::string kind = j.value("kind", "failed");
  run.kind = kind == "passed"        ? CaseRun::Kind::Passed
             : kind == "unsupported" ? CaseRun::Kind::Unsupported
             : kind == "blocked"     ? CaseRun::Kind::Blocked
                                     : CaseRun::Kind::Failed;
  run.message = j.value("message", "");
  run.max_abs_err = j.value("max_abs_err", 0.0);
  run.max_ulp = j.value("max_ulp", int64_t{0});
  run.compared = j.value("compared", false);
  run.details = j.value("details", "");
  run.median_seconds = j.value("median_seconds", 0.0);
  if (j.contains("repeat")) {
    const nlohmann::json& r = j.at("repeat");
    run.repeat = Repeatability{r.value("bitwise_equal", false), r.value("max_abs_diff", 0.0),
                               r.value("max_rel_diff", 0.0), r.value("first_difference", "")};
  }
  return run;
}

}  // namespace

namespace {

// While it lives, SIGPIPE is ignored: a worker that dies while we write its next case id
// must not kill us.
class IgnoreSigpipe {
 public:
  IgnoreSigpipe() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ignore, &previous_);
  }
  ~IgnoreSigpipe() { ::sigaction(SIGPIPE, &previous_, nullptr); }
  IgnoreSigpipe(const IgnoreSigpipe&) = delete;
  IgnoreSigpipe& operator=(const IgnoreSigpipe&) = delete;

 private:
  struct sigaction previous_ {};
};

// The parent's side of run_in_workers: hands out cases, reads results and output, and
// replaces workers that crash or time out. One poll loop; every fd is non-blocking.
class WorkerPool {
 public:
  WorkerPool(const std::vector<CaseId>& cases, const WorkerPoolOptions& options,
             const std::function<void(size_t, const WorkerOutcome&)>& on_result)
      : cases_(cases), options_(options), on_result_(on_result) {
    for (size_t i = 0; i < cases.size(); ++i) pending_.push_back(i);
  }

  void run() {
    const size_t jobs = std::max<size_t>(
        1, std::min<size_t>(static_cast<size_t>(std::max(1, options_.jobs)), cases_.size()));
    for (size_t i = 0; i < jobs && !pending_.empty(); ++i) {
      workers_.push_back(spawn(options_.worker_argv));
      assign(workers_.back());
    }
    while (any_alive()) {
      poll_and_read();
      kill_timed_out();
    }
  }

  // After an error: no worker outlives the run.
  void kill_all() {
    for (Worker& w : workers_)
      if (w.pid > 0) (void)reap(w, true);
  }

 private:
  // Gives the worker the next case, or closes its stdin (EOF: the worker exits).
  void assign(Worker& w) {
    if (pending_.empty()) {
      close_fd(w.to_child);
      return;
    }
    w.current = pending_.front();
    pending_.pop_front();
    w.tail.clear();
    w.started = Clock::now();
    (void)send_case(w, cases_[*w.current]);  // a dead worker is noticed on its result pipe
  }

  void finish(Worker& w, WorkerOutcome outcome) {
    const size_t index = *w.current;
    w.current.reset();
    on_result_(index, outcome);
  }

  // A worker that ended is replaced while cases are left.
  void replace_if_cases_left(Worker& w) {
    if (pending_.empty()) return;
    w = spawn(options_.worker_argv);
    assign(w);
  }

  bool any_alive() const {
    for (const Worker& w : workers_)
      if (w.pid > 0) return true;
    return false;
  }

  // Until the earliest running case's deadline (+1 ms, so it has passed); -1 when no case runs.
  int poll_timeout_ms() const {
    int timeout_ms = -1;
    const auto now = Clock::now();
    for (const Worker& w : workers_) {
      if (w.pid <= 0 || !w.current) continue;
      const auto deadline =
          w.started + std::chrono::duration_cast<Clock::duration>(
                          std::chrono::duration<double>(options_.timeout_seconds));
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
      const int ms = static_cast<int>(std::max<int64_t>(0, left.count()) + 1);
      timeout_ms = timeout_ms < 0 ? ms : std::min(timeout_ms, ms);
    }
    return timeout_ms;
  }

  void poll_and_read() {
    std::vector<pollfd> fds;
    std::vector<std::pair<size_t, bool>> owners;  // worker, is result pipe
    for (size_t i = 0; i < workers_.size(); ++i) {
      const Worker& w = workers_[i];
      if (w.pid <= 0) continue;
      if (w.results >= 0) {
        fds.push_back({w.results, POLLIN, 0});
        owners.emplace_back(i, true);
      }
      if (w.output >= 0) {
        fds.push_back({w.output, POLLIN, 0});
        owners.emplace_back(i, false);
      }
    }
    const int ready = ::poll(fds.data(), fds.size(), poll_timeout_ms());
    if (ready < 0 && errno != EINTR)
      BP_FAIL(ErrorCode::Internal, "conformance: poll failed: {}", std::strerror(errno));
    for (size_t k = 0; ready > 0 && k < fds.size(); ++k) {
      if (!fds[k].revents) continue;
      Worker& w = workers_[owners[k].first];
      if (w.pid <= 0) continue;
      if (owners[k].second)
        read_results(w);
      else
        read_output(w);
    }
  }

  static void read_output(Worker& w) {
    char buf[8192];
    const ssize_t n = ::read(w.output, buf, sizeof buf);
    if (n > 0)
      append_tail(w.tail, buf, static_cast<size_t>(n));
    else if (n == 0 || (errno != EINTR && errno != EAGAIN))
      close_fd(w.output);
  }

  void read_results(Worker& w) {
    char buf[8192];
    const ssize_t n = ::read(w.results, buf, sizeof buf);
    if (n > 0) {
      w.line.append(buf, static_cast<size_t>(n));
      size_t nl;
      while ((nl = w.line.find('\n')) != std::string::npos) {
        const std::string text = w.line.substr(0, nl);
        w.line.erase(0, nl + 1);
        take_result_line(w, text);
      }
      return;
    }
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    worker_exited(w);
  }

  // One line from a worker's fd 3: its "ready" greeting or the result of its current case.
  void take_result_line(Worker& w, const std::string& text) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) return;  // not ours: ignore
    if (j.value("ready", false)) {
      w.ready = true;
      return;
    }
    if (!w.current) return;
    WorkerOutcome outcome;
    outcome.run = parse_result(j);
    outcome.seconds = j.value("seconds", 0.0);
    finish(w, std::move(outcome));
    assign(w);
  }

  // The result pipe closed: the worker exited (normally after its last case, or it crashed).
  void worker_exited(Worker& w) {
    // Drain its output first so the tail holds its last words.
    if (w.output >= 0) {
      char buf[8192];
      ssize_t m;
      while ((m = ::read(w.output, buf, sizeof buf)) > 0)
        append_tail(w.tail, buf, static_cast<size_t>(m));
    }
    const std::string tail = w.tail;
    const bool was_ready = w.ready;
    const std::string how = reap(w, /*kill_first=*/false);
    w.pid = -1;
    if (!was_ready)
      BP_FAIL(ErrorCode::Internal, "conformance: a worker could not start ({}): {}", how,
              tail.empty() ? "(no output)" : tail);
    if (w.current) {
      WorkerOutcome outcome;
      outcome.kind = WorkerOutcome::Kind::Crashed;
      outcome.message = with_tail(fmt::format("the worker running this case {}", how), tail);
      outcome.seconds = std::chrono::duration<double>(Clock::now() - w.started).count();
      finish(w, std::move(outcome));
    }
    replace_if_cases_left(w);
  }

  void kill_timed_out() {
    const auto now = Clock::now();
    for (Worker& w : workers_) {
      if (w.pid <= 0 || !w.current) continue;
      const double elapsed = std::chrono::duration<double>(now - w.started).count();
      if (elapsed < options_.timeout_seconds) continue;
      const std::string tail = w.tail;
      (void)reap(w, /*kill_first=*/true);
      w.pid = -1;
      WorkerOutcome outcome;
      outcome.kind = WorkerOutcome::Kind::TimedOut;
      outcome.message = with_tail(
          fmt::format("timed out after {:g} s (the worker was killed)", options_.timeout_seconds),
          tail);
      outcome.seconds = elapsed;
      finish(w, std::move(outcome));
      replace_if_cases_left(w);
    }
  }

  const std::vector<CaseId>& cases_;
  const WorkerPoolOptions& options_;
  const std::function<void(size_t, const WorkerOutcome&)>& on_result_;
  std::deque<size_t> pending_;
  std::vector<Worker> workers_;
};

}  // namespace

void run_in_workers(const std::vector<CaseId>& cases, const WorkerPoolOptions& options,
                    const std::function<void(size_t, const WorkerOutcome&)>& on_result) {
  BP_CHECK(!options.worker_argv.empty(), ErrorCode::InvalidArgument,
           "conformance: no worker program given");
  const IgnoreSigpipe ignore_sigpipe;
  WorkerPool pool(cases, options, on_result);
  try {
    pool.run();
  } catch (...) {
    pool.kill_all();
    throw;
  }
}

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// A worker exists to run kernels that may crash, and its parent names the signal that ended
// it. Under AddressSanitizer (the asan build) a crash would instead be caught, reported and
// turned into exit status 1; the default dispositions keep the report the same in every
// build (ASan lets a program set its own handlers: allow_user_segv_handler).
void let_crash_signals_kill() {
  if (!kAddressSanitizer) return;
  for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, SIG_DFL);
}

// One case as the mode says: timed only (--perf), or run and compared, then repeated when
// it passed (--determinism).
CaseRun run_in_mode(const CaseId& id, Device device, uint64_t suite_seed, const WorkerMode& mode) {
  if (mode.perf_repetitions > 0) {
    CaseRun run;
    run.median_seconds = time_case(id, device, suite_seed, mode.perf_repetitions).median_seconds;
    return run;
  }
  CaseRun run = run_case(id, device, suite_seed, mode.explain);
  const bool op_case = id.op != kDeviceApiOp && id.op != kGradientCheckOp;
  if (mode.determinism && op_case && run.kind == CaseRun::Kind::Passed && run.compared)
    run.repeat = repeat_case(id, device, suite_seed);
  return run;
}

void result_json(const CaseRun& run, nlohmann::json& j) {
  constexpr double kLargest = std::numeric_limits<double>::max();
  j["kind"] = run.kind == CaseRun::Kind::Passed        ? "passed"
              : run.kind == CaseRun::Kind::Unsupported ? "unsupported"
              : run.kind == CaseRun::Kind::Blocked     ? "blocked"
                                                       : "failed";
  j["message"] = run.message;
  j["max_abs_err"] = run.max_abs_err;
  j["max_ulp"] = run.max_ulp;
  j["compared"] = run.compared;
  if (!run.details.empty()) j["details"] = run.details;
  if (run.median_seconds > 0) j["median_seconds"] = run.median_seconds;
  if (run.repeat)
    j["repeat"] = {{"bitwise_equal", run.repeat->bitwise_equal},
                   // JSON has no infinity: a NaN against a number is the largest double.
                   {"max_abs_diff", std::min(run.repeat->max_abs_diff, kLargest)},
                   {"max_rel_diff", run.repeat->max_rel_diff},
                   {"first_difference", run.repeat->first_difference}};
}

}  // namespace

int worker_loop(Device device, uint64_t suite_seed, int result_fd, const WorkerMode& mode) {
  let_crash_signals_kill();
  auto emit = [result_fd](const nlohmann::json& j) {
    const std::string line =
        j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(result_fd, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  };
  if (!emit({{"ready", true}})) return 1;
  std::string text;
  while (std::getline(std::cin, text)) {
    if (text.empty()) continue;
    const auto start = Clock::now();
    nlohmann::json j;
    try {
      result_json(run_in_mode(CaseId::parse(text), device, suite_seed, mode), j);
    } catch (const Error& e) {
      j["kind"] = e.code() == ErrorCode::NotImplemented && mode.perf_repetitions > 0 ? "unsupported"
                                                                                     : "failed";
      j["message"] = fmt::format("the suite could not run the case: {}", e.what());
    } catch (const std::exception& e) {
      j["kind"] = "failed";
      j["message"] = fmt::format("the suite could not run the case: {}", e.what());
    }
    j["seconds"] = std::chrono::duration<double>(Clock::now() - start).count();
    if (!emit(j)) return 1;
  }
  return 0;
}

}  // namespace bp::conformance
