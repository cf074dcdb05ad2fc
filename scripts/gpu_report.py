#!/usr/bin/env python3
"""The report of scripts/gpu-check: reads the step times (steps.tsv), the conformance report
and the two benchmark outputs in --out, writes gpu-check.json and summary.md there and
prints the summary. Each figure of Backplane is set against its anchor from the same run
and the goal of issue 7:
  add_vs_copy      Backplane's 256M-float add GB/s over the device-to-device copy GB/s
                   measured in the same run (goal >= 0.85);
  matmul_*         Backplane's TFLOP/s over torch.mm's (goal >= 0.90);
  add1*_us         torch's microseconds per tiny op over Backplane's (goal >= 1.0, i.e.
                   Backplane's latency <= torch's)."""
import argparse
import json
import os


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def rows_by_name(bench):
    return {r["name"]: r for r in (bench or {}).get("rows", [])}


def read_steps(out):
    steps = []
    if os.path.exists(os.path.join(out, "steps.tsv")):
        for line in open(os.path.join(out, "steps.tsv")):
            name, seconds, rc = line.rstrip("\n").split("\t")
            steps.append({"name": name, "seconds": float(seconds), "ok": rc == "0", "exit": int(rc)})
    return steps


def figure_rows(ours, torch):
    """The figures of the run, each against its anchor from the same run."""
    rows = []

    def add_row(name, unit, value, anchor, anchor_value, ratio, target, higher_is_better=True):
        met = None if ratio is None else (ratio >= target)
        rows.append({"name": name, "unit": unit, "value": value, "anchor": anchor,
                     "anchor_value": anchor_value, "ratio": ratio, "target": target, "met": met})

    def value(table, name):
        return table[name]["value"] if name in table else None

    def ratio(a, b):
        return a / b if a is not None and b else None

    add, copy = value(ours, "add_gbps"), value(ours, "copy_gbps")
    add_row("add 256M f32 (GB/s)", "GB/s", add, "device-to-device copy (bp::copy_, same run)", copy,
            ratio(add, copy), 0.85)
    for key, label in (("matmul_f32_tflops", "matmul f32 8192"), ("matmul_bf16_tflops", "matmul bf16 8192")):
        ours_v, torch_v = value(ours, key), value(torch, key)
        add_row(label + " (TFLOP/s)", "TFLOP/s", ours_v, "torch.mm", torch_v, ratio(ours_v, torch_v), 0.90)
    for key, label in (("add1_us", "1-element add, synchronised (us/op)"),
                       ("add1_pipelined_us", "1-element add, pipelined (us/op)")):
        ours_v, torch_v = value(ours, key), value(torch, key)
        add_row(label, "us", ours_v, "torch.add", torch_v, ratio(torch_v, ours_v), 1.0)
    # For reference: torch's own add against the copy, and the two copies.
    t_add, t_copy = value(torch, "add_gbps"), value(torch, "copy_gbps")
    add_row("torch add 256M f32 (GB/s, reference)", "GB/s", t_add, "torch copy_", t_copy,
            ratio(t_add, t_copy), 0.85)
    return rows


def render_markdown(report, gpu, seconds):
    steps, rows, summary = report["steps"], report["rows"], report["conformance"]["summary"]

    def fmt(v):
        return "-" if v is None else (f"{v:.3g}" if isinstance(v, float) else str(v))

    lines = [f"# gpu-check on {gpu or 'unknown GPU'} ({seconds:.0f} s)", "",
             "| step | seconds | ok |", "| --- | --- | --- |"]
    lines += [f"| {s['name']} | {s['seconds']:.1f} | {'yes' if s['ok'] else 'NO (exit %d)' % s['exit']} |" for s in steps]
    lines += ["", "conformance on cuda:0: " + (", ".join(f"{k} {v}" for k, v in summary.items()) if summary else "no report"), ""]
    lines += ["| figure | Backplane | anchor | anchor value | ratio | goal | met |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        met = "-" if r["met"] is None else ("yes" if r["met"] else "NO")
        lines.append(f"| {r['name']} | {fmt(r['value'])} | {r['anchor']} | {fmt(r['anchor_value'])} | "
                     f"{fmt(r['ratio'])} | >= {r['target']} | {met} |")
    failures = report["conformance"]["failures"]
    if failures:
        lines += ["", "first failures (reproduce with these lines):"] + ["    " + f for f in failures[:20]]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--gpu", default="")
    parser.add_argument("--seconds", type=float, default=0)
    args = parser.parse_args()
    out = args.out
    conformance = load(os.path.join(out, "conformance.json"))
    ours = rows_by_name(load(os.path.join(out, "bench_backplane.json")))
    torch = rows_by_name(load(os.path.join(out, "bench_torch.json")))
    summary = (conformance or {}).get("summary")
    report = {"gpu": args.gpu, "seconds": args.seconds, "steps": read_steps(out),
              "conformance": {"summary": summary,
                              "seconds": (conformance or {}).get("seconds"),
                              "failures": [c["repro"] for c in (conformance or {}).get("cases", [])
                                           if c.get("status") in ("failed", "crashed", "timeout", "xpass")][:50]},
              "rows": figure_rows(ours, torch)}
    with open(os.path.join(out, "gpu-check.json"), "w") as f:
        json.dump(report, f, indent=1)
    text = render_markdown(report, args.gpu, args.seconds)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
