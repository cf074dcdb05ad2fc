"""Instructions per call of one measured_* function of a benchmark program, counted by
valgrind's callgrind (stable run to run, unlike wall time on shared machines).

The programs (bench/add_one_element.cpp, bench/libtorch_instructions.cpp) run each
measured_* function once, each a loop of N calls, and print "iterations per measured
function: N". Collecting only one function (--toggle-collect) and dividing the total by N
gives the cost of one call. Used by bench/perf_guard.py (the perf_guard test) and
bench/report.py (scripts/bench). Python 3 standard library only.
"""

import os
import re
import subprocess
import tempfile


class CallgrindError(RuntimeError):
    pass


def instructions_per_call(binary, function, args=(), env=None, valgrind="valgrind",
                          preload=None):
    """Runs `binary args` under callgrind collecting only `function` (a measured_* name,
    matched exactly: "measured_add" does not also collect measured_add_out) and returns its
    instructions per call as an int. `preload`: a library for LD_PRELOAD, such as
    bench/valgrind_hwy_shim.cpp's (needed to load the CPU plugin under valgrind here)."""
    with tempfile.TemporaryDirectory(prefix="bp-callgrind-") as tmp:
        out_file = os.path.join(tmp, "callgrind.out")
        command = [valgrind, "--tool=callgrind", f"--callgrind-out-file={out_file}",
                   f"--toggle-collect=*::{function}(*", binary, *args]
        run_env = dict(os.environ, **(env or {}))
        if preload:
            run_env["LD_PRELOAD"] = preload
        result = subprocess.run(command, env=run_env, capture_output=True, text=True)
        if result.returncode != 0:
            raise CallgrindError(f"{' '.join(command)} exited with {result.returncode}:\n"
                                 f"{result.stderr[-2000:]}")
        match = re.search(r"iterations per measured function: (\d+)", result.stdout)
        if not match:
            raise CallgrindError(f"{binary} did not print its iteration count:\n{result.stdout}")
        iterations = int(match.group(1))
        total = None
        with open(out_file) as f:
            for line in f:
                # "summary:" in the callgrind format; older valgrind wrote "totals:".
                if line.startswith(("summary:", "totals:")):
                    total = int(line.split()[1])
                    break
        if total is None:
            raise CallgrindError(f"no summary line in {out_file}")
        if total == 0:
            raise CallgrindError(f"{function} collected no instructions: is it in {binary}?")
        return total // iterations
