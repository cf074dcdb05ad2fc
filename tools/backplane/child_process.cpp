// Child processes with a timeout (child_process.hpp).
#include "child_process.hpp"

#include <backplane/conformance/worker_pool.hpp>
#include <backplane/core/error.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace bp::cli {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kOutputTail = 4096;  // bytes of the child's output kept for the report

// Forks and execs argv in its own process group, with stdin from /dev/null and stdout and
// stderr into the pipe `out`; returns the child's pid.
pid_t start_child(const std::vector<std::string>& argv, const int (&out)[2]) {
  // Prepared before fork: the child may only make async-signal-safe calls (this process has
  // threads, a plugin's thread pool among them).
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(out[0]);
    ::close(out[1]);
    BP_CHECK(false, ErrorCode::Internal, "fork failed: {}", std::strerror(errno));
  }
  if (pid == 0) {
    ::setpgid(0, 0);  // own process group: a timeout kills its children (workers) too
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::dup2(out[1], 1);
    ::dup2(out[1], 2);
    ::execv(args[0], args.data());
    static const char msg[] = "backplane: exec of the child process failed\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(out[1]);
  return pid;
}

// Reads the child's output into outcome.output_tail until every writer closed the pipe or
// the deadline passed (then outcome.timed_out).
void read_output_until(int fd, Clock::time_point deadline, ChildOutcome& outcome) {
  char buffer[4096];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      outcome.timed_out = true;
      return;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) return;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return;  // every writer closed: the child (and its children) ended
    outcome.output_tail.append(buffer, static_cast<size_t>(n));
    if (outcome.output_tail.size() > kOutputTail)
      outcome.output_tail.erase(0, outcome.output_tail.size() - kOutputTail);
  }
}

}  // namespace

ChildOutcome run_child(const std::vector<std::string>& argv, double timeout_seconds) {
  BP_CHECK(!argv.empty(), ErrorCode::Internal, "run_child: empty command line");
  int out[2];
  BP_CHECK(::pipe2(out, O_CLOEXEC) == 0, ErrorCode::Internal, "cannot create a pipe: {}",
           std::strerror(errno));
  const auto start = Clock::now();
  const pid_t pid = start_child(argv, out);

  ChildOutcome outcome;
  read_output_until(out[0],
                    start + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(timeout_seconds)),
                    outcome);
  ::close(out[0]);
  if (outcome.timed_out) ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::kill(-pid, SIGKILL);  // anything the child left behind in its group
  outcome.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  outcome.exited = WIFEXITED(status);
  outcome.exit_code = outcome.exited ? WEXITSTATUS(status) : -1;
  outcome.how = outcome.timed_out ? fmt::format("timed out after {:.0f} s", timeout_seconds)
                                  : conformance::describe_wait_status(status);
  return outcome;
}

}  // namespace bp::cli
