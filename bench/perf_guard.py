#!/usr/bin/env python3
"""The instruction-count regression guard (issue 8; ctest label perf_guard): runs the
dispatch micro-benchmark under callgrind (one run per device and environment) and fails when
a call costs more instructions than its budget in bench/budgets.toml.

  bench/perf_guard.py --binary build/default/bench/bench_add_one_element \
      [--budgets bench/budgets.toml] [--only cpu/measured_add]

Instruction counts are stable run to run (wall time on these shared machines is not), so a
budget with ~10-15% headroom over the measured figure catches a real regression and
nothing else. docs/performance.md says how to update a budget. Python 3.11+ (tomllib).
"""

import argparse
import os
import sys
import tomllib

# No __pycache__ in the source tree (ctest runs this from it).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callgrind import CallgrindError, instructions_per_call  # noqa: E402


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True, help="bench_add_one_element")
    parser.add_argument("--budgets", default=os.path.join(here, "budgets.toml"))
    parser.add_argument("--valgrind", default="valgrind")
    parser.add_argument("--preload",
                        help="LD_PRELOAD under valgrind (none is needed: bench_add_one_element "
                             "does not load libhwy, which bench_valgrind_hwy_shim is for)")
    parser.add_argument("--only", action="append", default=[],
                        help="check only this entry (device/function), repeatable")
    args = parser.parse_args()

    with open(args.budgets, "rb") as f:
        budgets = tomllib.load(f)["budget"]
    over = []
    runs = {}  # (device, env) -> {function: instructions per call}: one run serves many
    for entry in budgets:
        name = entry["name"]
        if args.only and name not in args.only:
            continue
        env = entry.get("env", {})
        key = (entry["device"], tuple(sorted(env.items())))
        try:
            if key not in runs:
                runs[key] = instructions_per_call(args.binary, [entry["device"]], env=env,
                                                  valgrind=args.valgrind, preload=args.preload)
            measured = runs[key][entry["function"]]
        except (CallgrindError, KeyError) as e:
            print(f"{name}: cannot measure: {e}", file=sys.stderr)
            return 2
        budget = entry["instructions"]
        verdict = "ok" if measured <= budget else "OVER BUDGET"
        print(f"{name:40} {measured:8d} instructions/call   budget {budget:8d}   {verdict}",
              flush=True)
        if measured > budget:
            over.append(name)
        elif measured < 0.75 * budget:
            # Not a failure: a faster call path is good news, but the budget should follow it
            # down or it stops guarding.
            print(f"  note: {name} is {100 - 100 * measured // budget}% under its budget; "
                  "lower it in bench/budgets.toml", file=sys.stderr)
    if over:
        print(f"\nperf_guard: {len(over)} call(s) over their instruction budget: {', '.join(over)}"
              f"\nProfile with scripts/bench-dispatch or callgrind_annotate; if the cost is"
              f" intended, raise the budget in {args.budgets} with a comment saying why"
              f" (docs/performance.md).", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
