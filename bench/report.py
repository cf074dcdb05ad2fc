#!/usr/bin/env python3
"""Runs the benchmark programs of an already built tree and writes the results of issue 8:
bench/results/latest.json ({"machine": {...}, "rows": [...]}) and latest.md (the same rows
as a Markdown table). scripts/bench builds the tree and runs this; docs/performance.md
shows the table.

  bench/report.py [--build build/default] [--out bench/results] [--quick]

Every row comes from bench/targets.toml: a figure and its anchor, both measured in this
run, their ratio and the target. A measurement whose program was not built (no libtorch,
no OpenCL, ...) leaves its rows with value null and met null. Python 3.11+ (tomllib),
standard library only.
"""

import argparse
import datetime
import glob
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib

# No __pycache__ in the source tree (ctest runs this from it).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callgrind import CallgrindError, instructions_per_call  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIME_UNITS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def log(text):
    print(f"[bench] {text}", file=sys.stderr, flush=True)


# ---- measurements: name -> number (see the header of bench/targets.toml) ----------------

def callgrind_figures(build, m):
    """Instructions per call: the Backplane side on noop:0 and cpu:0, libtorch's side (one
    callgrind run each; bench/callgrind.py)."""
    shim = os.path.join(build, "bench", "libbench_valgrind_hwy_shim.so")
    for program, device in [("bench_add_one_element", "noop"), ("bench_add_one_element", "cpu"),
                            ("bench_libtorch_instructions", "libtorch")]:
        binary = os.path.join(build, "bench", program)
        if not os.path.exists(binary):
            log(f"{program} not built: its instruction counts are left out")
            continue
        try:
            # libtorch loads libhwy, which needs the shim under valgrind (the file says why).
            use_shim = device == "libtorch" and os.path.exists(shim)
            figures = instructions_per_call(binary, [] if device == "libtorch" else [device],
                                            preload=shim if use_shim else None)
        except CallgrindError as e:
            log(f"callgrind {program} {device} failed: {e}")
            continue
        for fn, count in figures.items():
            m[f"callgrind/{device}/{fn}"] = count
            log(f"callgrind {device} {fn}: {count} instructions/call")


def gbench(build, program, m, args, env):
    """Runs one Google Benchmark program with its JSON written to a file, and keeps the
    median of each benchmark's repetitions in every unit a row may ask for."""
    binary = os.path.join(build, "bench", f"bench_{program}")
    if not os.path.exists(binary):
        log(f"bench_{program} not built: its rows are left empty")
        return
    with tempfile.TemporaryDirectory(prefix="bp-bench-") as tmp:
        out = os.path.join(tmp, "out.json")
        command = [binary, f"--benchmark_out={out}", "--benchmark_out_format=json",
                   "--benchmark_report_aggregates_only=true",
                   "--benchmark_enable_random_interleaving=true", *args]
        log(" ".join(command[:1] + command[2:]))
        # The program's console table goes to stderr: progress for the person waiting.
        result = subprocess.run(command, env=dict(os.environ, **env), stdout=sys.stderr)
        if result.returncode != 0 or not os.path.exists(out):
            log(f"bench_{program} exited with {result.returncode}: its rows are left empty")
            return
        try:
            with open(out) as f:
                report = json.load(f)
        except json.JSONDecodeError:  # nothing ran: a filter that matched no benchmark
            log(f"bench_{program} wrote no results: its rows are left empty")
            return
    # The median aggregate of each benchmark; with one repetition there is none, and the
    # repetitions themselves give it.
    runs, medians = {}, {}
    for b in report["benchmarks"]:
        name = b["run_name"].removesuffix("/real_time")
        if b.get("aggregate_name") == "median":
            medians[name] = b
        elif b.get("run_type") == "iteration":
            runs.setdefault(name, []).append(b)
    for name, reps in runs.items():
        if name not in medians:
            medians[name] = sorted(reps, key=lambda b: b["real_time"])[len(reps) // 2]
    for name, b in medians.items():
        ns = b["real_time"] * TIME_UNITS[b["time_unit"]]
        key = f"{program}/{name}"
        for unit, scale in TIME_UNITS.items():
            m[f"{key}:{unit}"] = ns / scale
        if "bytes_per_second" in b:
            m[f"{key}:GB/s"] = b["bytes_per_second"] / 1e9
        if "FLOP/s" in b:
            m[f"{key}:GFLOP/s"] = b["FLOP/s"] / 1e9


def plugin_loads(build, m, repeats):
    """Load time of the CPU plugin alone and of every built plugin, each in fresh processes
    (the median of `repeats`). The reference plugin is left out: it is built in."""
    binary = os.path.join(build, "bench", "bench_plugin_load")
    cpu = os.path.join(build, "plugins", "libbackplane_plugin_cpu.so")
    every = sorted(p for p in glob.glob(os.path.join(build, "plugins", "libbackplane_plugin_*.so"))
                   if not p.endswith("_reference.so"))
    if not os.path.exists(binary) or not os.path.exists(cpu):
        log("bench_plugin_load or the CPU plugin not built: load rows left empty")
        return {}

    def median_load(paths, options=()):
        runs = [json.loads(subprocess.run([binary, *options, *paths], capture_output=True,
                                          text=True, check=True).stdout)
                for _ in range(repeats)]
        per_plugin = {os.path.basename(p["path"]): statistics.median(
            r["plugins"][i]["ms"] for r in runs) for i, p in enumerate(runs[0]["plugins"])}
        statuses = {os.path.basename(p["path"]): p["status"] for p in runs[0]["plugins"]}
        m["load/vendor_init"] = statistics.median(r["vendor_init_ms"] for r in runs)
        return statistics.median(r["total_ms"] for r in runs), per_plugin, statuses

    m["load/cpu"], _, _ = median_load([cpu])
    m["load/all_cold"], _, _ = median_load(every)
    # The issue's target leaves out the vendor runtimes' initialisation: they are initialised
    # first, outside the clock (bench/plugin_load.cpp, --vendor-first).
    m["load/all"], per_plugin, statuses = median_load(every, ["--vendor-first"])
    log(f"plugin load: cpu {m['load/cpu']:.2f} ms, all {m['load/all']:.2f} ms after "
        f"{m['load/vendor_init']:.2f} ms of vendor runtime start-up "
        f"({m['load/all_cold']:.2f} ms with it)")
    return {name: (ms, statuses[name]) for name, ms in per_plugin.items()}


def torch_bridge(build, m, quick, env):
    """bench/torch_bridge.py: the PyTorch bridge on cpu:0 against PyTorch's CPU, both timed
    in one run (Debian's /usr/bin/python3, which has torch; the build's python folder on
    PYTHONPATH). Each benchmark gives torch_bridge/bridge_<name> and torch_bridge/torch_<name>
    in every time unit, and torch_bridge/<name>:ratio."""
    python_dir = os.path.join(build, "python")
    if not glob.glob(os.path.join(python_dir, "backplane", "torch", "_C*.so")):
        log("the PyTorch bridge is not built (no PyTorch?): its rows are left empty")
        return
    with tempfile.TemporaryDirectory(prefix="bp-bench-") as tmp:
        out = os.path.join(tmp, "torch_bridge.json")
        command = ["/usr/bin/python3", os.path.join(ROOT, "bench", "torch_bridge.py"),
                   "--json", out, *(["--quick"] if quick else [])]
        log(" ".join(command[1:]))
        result = subprocess.run(command, stdout=sys.stderr,
                                env=dict(os.environ, PYTHONPATH=python_dir, **env))
        if result.returncode != 0 or not os.path.exists(out):
            log(f"bench/torch_bridge.py exited with {result.returncode}: its rows are left empty")
            return
        with open(out) as f:
            report = json.load(f)
    for name, b in report["benchmarks"].items():
        for side in ("bridge", "torch"):
            for unit, scale in TIME_UNITS.items():
                m[f"torch_bridge/{side}_{name}:{unit}"] = b[f"{side}_ns"] / scale
        m[f"torch_bridge/{name}:ratio"] = b["ratio"]


def conformance_quick(build, m, threads):
    cli = os.path.join(build, "tools", "backplane")
    cpu = os.path.join(build, "plugins", "libbackplane_plugin_cpu.so")
    if not os.path.exists(cli) or not os.path.exists(cpu):
        log("tools/backplane or the CPU plugin not built: conformance row left empty")
        return
    with tempfile.TemporaryDirectory(prefix="bp-bench-") as tmp:
        command = [cli, "conformance", "--device", "cpu:0", "--plugin", cpu, "--quick",
                   "--jobs", str(threads), "--json", os.path.join(tmp, "report.json")]
        t0 = time.monotonic()
        result = subprocess.run(command, capture_output=True, text=True)
        seconds = time.monotonic() - t0
    if result.returncode != 0:
        log(f"conformance quick suite failed ({result.returncode}): row left empty\n"
            f"{result.stdout[-2000:]}{result.stderr[-2000:]}")
        return
    m["conformance/cpu_quick"] = seconds
    log(f"conformance quick suite on cpu:0: {seconds:.1f} s")


# ---- rows ------------------------------------------------------------------------------

def met(target, value, ratio):
    match = re.fullmatch(r"(value|ratio)\s*(<=|>=|<|>)\s*([0-9.eE+-]+)", target.strip())
    if not match:
        raise ValueError(f"bench/targets.toml: cannot read target '{target}'")
    lhs = value if match.group(1) == "value" else ratio
    if lhs is None:
        return None
    bound = float(match.group(3))
    return {"<=": lhs <= bound, ">=": lhs >= bound, "<": lhs < bound, ">": lhs > bound}[
        match.group(2)]


def rows(targets, m):
    out = []
    for t in targets:
        value = m.get(t.get("value_from", ""))
        anchor_value = m.get(t.get("anchor_from", ""))
        ratio = value / anchor_value if value is not None and anchor_value else None
        out.append({"name": t["name"], "unit": t["unit"], "value": value,
                    "anchor": t.get("anchor"), "anchor_value": anchor_value,
                    "ratio": ratio, "target": t["target"], "met": met(t["target"], value, ratio)})
    return out


def machine(build, threads):
    def first(command):
        try:
            return subprocess.run(command, capture_output=True, text=True,
                                  cwd=ROOT).stdout.strip().splitlines()[0]
        except (OSError, IndexError):
            return None
    cpu_model = None
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kib = int(f.readline().split()[1])
    compiler = None
    cache = os.path.join(build, "CMakeCache.txt")
    if os.path.exists(cache):
        with open(cache) as f:
            cxx = re.search(r"^CMAKE_CXX_COMPILER:\w+=(.*)$", f.read(), re.M)
        compiler = first([cxx.group(1), "--version"]) if cxx else None
    commit = first(["git", "rev-parse", "HEAD"])
    dirty = first(["git", "status", "--porcelain", "--untracked-files=no"])
    return {"cpu": cpu_model, "cores": os.cpu_count(), "threads": threads,
            "memory_gib": round(mem_kib / 2**20, 1), "os": platform.platform(),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "compiler": compiler, "build": os.path.relpath(os.path.abspath(build), ROOT),
            "git_commit": commit + ("+dirty" if dirty else "") if commit else None,
            "valgrind": first(["valgrind", "--version"])}


def fmt(v):
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "**no**"
    a = abs(v)
    return f"{v:,.0f}" if a >= 100 else f"{v:.1f}" if a >= 10 else f"{v:.3g}"


def markdown(result, targets, loads):
    """The rows as a table; the targets' notes (kept out of the JSON schema) as footnotes."""
    mc = result["machine"]
    lines = [f"Measured {mc['date']} on {mc['cpu']} ({mc['cores']} cores, {mc['threads']} threads"
             f" used, {mc['memory_gib']} GiB), {mc['compiler']}, commit {mc['git_commit']}.", "",
             "| row | value | unit | anchor | anchor value | ratio | target | met |",
             "| --- | ---: | --- | --- | ---: | ---: | --- | --- |"]
    notes = []
    for r, t in zip(result["rows"], targets):
        name = r["name"]
        if "note" in t:
            notes.append(t["note"])
            name += f" [{len(notes)}]"
        ratio = f"{r['ratio']:.3g}" if r["ratio"] is not None else "—"
        met_text = "n/a" if r["met"] is None else fmt(r["met"])
        lines.append(f"| {name} | {fmt(r['value'])} | {r['unit']} | {r['anchor'] or '—'} |"
                     f" {fmt(r['anchor_value'])} | {ratio} | {r['target']} | {met_text} |")
    lines += [""] + [f"[{i}] {n}" for i, n in enumerate(notes, 1)]
    if loads:
        lines += ["", "Plugin load, every built plugin in one fresh process, the vendor runtimes "
                  "initialised first (median ms):", ""]
        lines += [f"- {name}: {ms:.2f} ms ({status})" for name, (ms, status) in loads.items()]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "default"))
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    parser.add_argument("--quick", action="store_true",
                        help="one short repetition per benchmark (checks the harness only)")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    if not shutil.which("valgrind"):
        sys.exit("bench/report.py: valgrind is needed for the instruction counts (scripts/setup)")
    # Issue 8's figures are for 2 threads; fewer where the machine has fewer cores.
    threads = min(int(os.environ.get("BP_BENCH_THREADS", "2")), os.cpu_count())
    env = {"OMP_NUM_THREADS": str(threads)}
    reps = ["--benchmark_repetitions=1", "--benchmark_min_time=0.01"] if args.quick else \
        ["--benchmark_repetitions=5", "--benchmark_min_time=0.1"]
    t0 = time.monotonic()
    m = {}
    callgrind_figures(build, m)
    gbench(build, "cpu_vs_libtorch", m, reps, env)
    # Issue 8 compares the 16M add_out with the best hand-written loop of the same run.
    loops = [m[k] for k in ("cpu_vs_libtorch/BM_loop_add_out_16M:GB/s",
                            "cpu_vs_libtorch/BM_stream_add_out_16M:GB/s") if k in m]
    if loops:
        m["cpu_vs_libtorch/best_loop_add_out_16M:GB/s"] = max(loops)
    gbench(build, "allocating_add", m, reps + ["--benchmark_filter=/16777216/"], env)
    # PoCL keeps the programs it compiles here, so only the first run pays for building them.
    gbench(build, "opencl", m, reps + ["--benchmark_filter=add_16M"],
           {"POCL_CACHE_DIR": os.environ.get("POCL_CACHE_DIR", os.path.join(build, "pocl-cache"))})
    torch_bridge(build, m, args.quick, env)
    loads = plugin_loads(build, m, 3 if args.quick else 7)
    conformance_quick(build, m, threads)

    with open(os.path.join(ROOT, "bench", "targets.toml"), "rb") as f:
        targets = tomllib.load(f)["row"]
    result = {"machine": machine(build, threads), "rows": rows(targets, m)}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "latest.json"), "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    text = markdown(result, targets, loads)
    with open(os.path.join(args.out, "latest.md"), "w") as f:
        f.write(text)
    print(text)
    log(f"wrote {args.out}/latest.json and latest.md in {time.monotonic() - t0:.0f} s")


if __name__ == "__main__":
    main()
