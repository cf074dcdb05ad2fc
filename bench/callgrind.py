"""Instructions per call of the measured_* functions of a benchmark program, counted by
valgrind's callgrind (stable run to run, unlike wall time on shared machines).

The programs (bench/add_one_element.cpp, bench/libtorch_instructions.cpp) run each
measured_* function once, each a loop of N calls, one after the other (none calls
another), and print "iterations per measured function: N". One callgrind run collects
only inside those functions (--toggle-collect) and dumps its counters before each one
starts (--dump-before), so each dump holds the function that ran before the one named in
its trigger, and the final dump the last one; dividing by N gives the cost of one call.
One run per program matters: starting libtorch under valgrind takes a minute or more.
Used by bench/perf_guard.py (the perf_guard test) and bench/report.py (scripts/bench).
Python 3 standard library only.
"""

import glob
import os
import re
import subprocess
import tempfile

FUNCTION = re.compile(r"::(measured_\w+)\(")


class CallgrindError(RuntimeError):
    pass


def measured_functions(binary):
    """The measured_* function names in `binary`'s symbol table (local symbols included)."""
    symbols = subprocess.run(["nm", "--demangle", binary], capture_output=True, text=True,
                             check=True).stdout
    return sorted({m.group(1) for m in FUNCTION.finditer(symbols)})


def _read_dump(path):
    trigger, total = None, None
    with open(path) as f:
        for line in f:
            if line.startswith("desc: Trigger:"):
                trigger = line
            # "summary:" in the callgrind format; older valgrind wrote "totals:".
            elif line.startswith(("summary:", "totals:")):
                total = int(line.split()[1])
                break
    if total is None:
        raise CallgrindError(f"no summary line in {path}")
    match = FUNCTION.search(trigger or "")
    return (match.group(1) if match else None), total


def instructions_per_call(binary, args=(), env=None, valgrind="valgrind", preload=None):
    """Runs `binary args` once under callgrind and returns {function: instructions per
    call} for every measured_* function it ran. `preload`: a library for LD_PRELOAD, such
    as bench/valgrind_hwy_shim.cpp's (needed to load Highway under valgrind here)."""
    functions = measured_functions(binary)
    if not functions:
        raise CallgrindError(f"{binary} has no measured_* functions")
    with tempfile.TemporaryDirectory(prefix="bp-callgrind-") as tmp:
        out_file = os.path.join(tmp, "callgrind.out")
        command = [valgrind, "--tool=callgrind", f"--callgrind-out-file={out_file}",
                   "--toggle-collect=*::measured_*",
                   *(f"--dump-before=*::{fn}(*" for fn in functions), binary, *args]
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
        # Dumps callgrind.out.1, .2, ... in order, then callgrind.out at exit.
        dumps = sorted(glob.glob(out_file + ".*"), key=lambda p: int(p.rsplit(".", 1)[1]))
        figures, running = {}, None
        for path in dumps + [out_file]:
            starts, total = _read_dump(path)
            if running:
                figures[running] = total // iterations
            elif total:
                raise CallgrindError(f"{path}: instructions collected outside measured_*")
            running = starts
    return figures
