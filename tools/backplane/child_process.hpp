// Runs the `backplane` program again as a child process and collects how it ended:
// `backplane run` does each device's work in a child, so a plugin that crashes or hangs
// costs that device's row of the table, never the whole run. POSIX (Linux) only.
#pragma once

#include <string>
#include <vector>

namespace bp::cli {

struct ChildOutcome {
  bool exited = false;  // ended by exit() (exit_code is valid)
  int exit_code = -1;
  bool timed_out = false;   // killed after the timeout
  std::string how;          // "exited with status 1", "killed by signal SIGSEGV (...)", ...
  std::string output_tail;  // the last lines of its stdout + stderr
  double seconds = 0.0;
};

// Runs argv (argv[0] is the program's path) in its own process group with stdin closed,
// stdout and stderr captured; kills the group after `timeout_seconds`. Throws bp::Error
// when the process cannot be started.
ChildOutcome run_child(const std::vector<std::string>& argv, double timeout_seconds);

}  // namespace bp::cli
