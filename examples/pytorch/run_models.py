#!/usr/bin/env python3
"""The PyTorch part of `scripts/run`: the two example models of examples/models/, written in
torch.nn, and torchvision's resnet18, run through the PyTorch bridge (backplane.torch) on
every privateuseone device, and compared with the same modules on PyTorch's own CPU kernels.

  PYTHONPATH=build/default/python /usr/bin/python3 examples/pytorch/run_models.py \
      [--devices cpu,opencl:0] [--iterations 10] [--seed 0] [--json FILE]

The models have the sizes of the C++ examples (docs/examples.md):
  mlp                a torch.nn.Sequential: x [64, 256] -> (Linear -> ReLU) x 2 (width 512)
                     -> Linear (16) -> LogSoftmax
  transformer_block  torch.nn.TransformerEncoderLayer(batch_first=True, norm_first=True,
                     GELU, no dropout) in eval mode on x [2, 64, 128], 4 heads, ffn 512,
                     with a causal mask (Transformer.generate_square_subsequent_mask)
  resnet18           torchvision.models.resnet18(weights=None) in eval mode on x [1, 3, 64, 64]
                     (convolution, batch norm, pooling: op set v2; skipped without torchvision)

For each device and model the table gives the largest |device - CPU| over the output, the
median time per forward pass (after one warm-up pass; each pass reads its output back to the
host, so work a device queues is inside the time) and the aten operators of one forward pass
that ran on PyTorch's CPU kernels instead of Backplane (backplane.torch.fallback_counts(),
reset before each model on each device; their once-per-operator warnings are not printed,
the column shows them). A first row times the CPU modules themselves.

Bound: a float32 output passes when max |device - CPU| <= 1e-4 * max(1, max |CPU|), the
bound of the C++ examples (kTolerance in examples/models/run_model.hpp): kernels that
accumulate in another order differ by a few ulp per op, a wrong one by 1e-2 or more.
Then a training run (docs/training.md): the MLP trained for TRAIN_STEPS steps of SGD with
momentum on nll_loss against fixed labels, on each device and on the CPU; the loss after the
last step must be within TRAIN_TOLERANCE (relative) of the CPU's.

Exit status: 0 when every model ran on every device within the bound, 1 otherwise.
--json FILE writes the rows ({"ok": ..., "tolerance": ..., "rows": [...],
"training": [...]}).
"""
import argparse
import copy
import json
import math
import statistics
import sys
import time
import warnings

import torch

import backplane.torch as bt

TOLERANCE = 1e-4

# The sizes of examples/models/mlp.hpp and transformer_block.hpp.
MLP = {"batch": 64, "in": 256, "hidden": 512, "classes": 16, "layers": 2}
TRANSFORMER = {"batch": 2, "seq": 64, "dim": 128, "heads": 4, "ffn": 512}


class CausalEncoderLayer(torch.nn.Module):
    """A TransformerEncoderLayer with its causal mask as a buffer, so that .to(device) moves
    both and the forward pass takes only x."""

    def __init__(self, seq, dim, heads, ffn):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(
            dim, heads, dim_feedforward=ffn, dropout=0.0, activation="gelu",
            batch_first=True, norm_first=True)
        self.register_buffer("mask", torch.nn.Transformer.generate_square_subsequent_mask(seq))

    def forward(self, x):
        return self.layer(x, src_mask=self.mask)


def build_mlp(seed):
    """The MLP (eval mode) and an input batch in [-1, 1), on the CPU, from `seed`."""
    torch.manual_seed(seed)
    layers, width = [], MLP["in"]
    for _ in range(MLP["layers"]):
        layers += [torch.nn.Linear(width, MLP["hidden"]), torch.nn.ReLU()]
        width = MLP["hidden"]
    layers += [torch.nn.Linear(width, MLP["classes"]), torch.nn.LogSoftmax(dim=-1)]
    model = torch.nn.Sequential(*layers).eval()
    return model, torch.rand(MLP["batch"], MLP["in"]) * 2 - 1


def build_transformer(seed):
    """The transformer block (eval mode) and an input in [-1, 1), on the CPU, from `seed`."""
    torch.manual_seed(seed)
    c = TRANSFORMER
    model = CausalEncoderLayer(c["seq"], c["dim"], c["heads"], c["ffn"]).eval()
    return model, torch.rand(c["batch"], c["seq"], c["dim"]) * 2 - 1


def build_resnet18(seed):
    """torchvision's resnet18 (random weights, eval mode) and an input in [-1, 1)."""
    import torchvision  # python3-torchvision; only this model needs it
    torch.manual_seed(seed)
    return torchvision.models.resnet18(weights=None).eval(), torch.rand(1, 3, 64, 64) * 2 - 1


def has_torchvision():
    try:
        import torchvision  # noqa: F401
        return True
    except ImportError:
        return False


MODELS = {"mlp": build_mlp, "transformer_block": build_transformer}
if has_torchvision():
    MODELS["resnet18"] = build_resnet18


def describe(name):
    if name == "resnet18":
        return "torchvision, batch 1, 3x64x64"
    if name == "mlp":
        c = MLP
        return (f"batch {c['batch']}, {c['in']} -> {c['hidden']} x{c['layers']} -> "
                f"{c['classes']}")
    c = TRANSFORMER
    return (f"batch {c['batch']}, seq {c['seq']}, dim {c['dim']}, {c['heads']} heads, "
            f"ffn {c['ffn']}")


def max_abs_difference(got, expected):
    """Largest |got - expected|; NaN on one side only counts as infinitely wrong."""
    nan_got, nan_expected = torch.isnan(got), torch.isnan(expected)
    if not torch.equal(nan_got, nan_expected):
        return math.inf
    diff = (got - expected).abs().masked_fill(nan_got, 0)
    return diff.max().item() if diff.numel() else 0.0


def time_forward(model, x, iterations):
    """Median ms of `iterations` forward passes, each reading its output back to the host,
    and the last output (on the host)."""
    times, out = [], None
    for _ in range(iterations):
        start = time.perf_counter()
        out = model(x).cpu()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), out


def run_on_device(name, index, seed, iterations, expected):
    """One model on privateuseone:`index`: its error against `expected` (the CPU output),
    its median ms per forward and the fallbacks of its first pass."""
    cpu_model, x = MODELS[name](seed)
    device = torch.device("privateuseone", index)
    row = {"device": f"privateuseone:{index}", "backplane": bt.device_name(index),
           "model": name}
    try:
        model, x = copy.deepcopy(cpu_model).to(device), x.to(device)
        bt.reset_fallback_counts()
        got = model(x).cpu()  # the warm-up pass, checked
        row["fallbacks"] = {op.removeprefix("aten::"): n
                            for op, n in sorted(bt.fallback_counts().items())}
        row["max_abs_err"] = max_abs_difference(got, expected)
        row["tolerance"] = TOLERANCE * max(1.0, expected.abs().max().item())
        row["ms_per_forward"], _ = time_forward(model, x, iterations)
        row["ok"] = row["max_abs_err"] <= row["tolerance"]
    except RuntimeError as error:  # a Backplane or PyTorch error: the row fails, the run goes on
        row["error"] = str(error).splitlines()[0]
        row["ok"] = False
    return row


def run_on_cpu(name, seed, iterations):
    """The model on PyTorch's CPU: the expected output and the time to compare with."""
    model, x = MODELS[name](seed)
    expected = model(x)
    ms, _ = time_forward(model, x, iterations)
    row = {"device": "cpu", "backplane": "(PyTorch)", "model": name, "ms_per_forward": ms,
           "ok": True}
    return expected, row


TRAIN_STEPS = 10
TRAIN_TOLERANCE = 1e-4


def train_mlp(seed, device):
    """The MLP's loss after TRAIN_STEPS steps of SGD (momentum) on `device`, and the aten
    operators that ran on PyTorch's CPU kernels meanwhile."""
    model, x = build_mlp(seed)
    labels = torch.randint(0, MLP["classes"], (MLP["batch"],),
                           generator=torch.Generator().manual_seed(seed))
    model, x, labels = model.train().to(device), x.to(device), labels.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    bt.reset_fallback_counts()
    for _ in range(TRAIN_STEPS):
        optimizer.zero_grad()
        loss = torch.nn.functional.nll_loss(model(x), labels)
        loss.backward()
        optimizer.step()
    return loss.item(), {op.removeprefix("aten::"): n
                         for op, n in sorted(bt.fallback_counts().items())}


def training_run(seed, indices):
    """One row per device: its loss after training against the CPU's."""
    want, _ = train_mlp(seed, torch.device("cpu"))
    rows = []
    for index in indices:
        row = {"device": f"privateuseone:{index}", "backplane": bt.device_name(index),
               "loss_cpu": want}
        try:
            row["loss"], row["fallbacks"] = train_mlp(seed, torch.device("privateuseone", index))
            row["ok"] = abs(row["loss"] - want) <= TRAIN_TOLERANCE * abs(want)
        except Exception as e:  # reported in the table, as a model's error is
            row["error"], row["ok"] = str(e).splitlines()[0], False
        rows.append(row)
    print(f"\ntraining: the MLP, {TRAIN_STEPS} steps of SGD (momentum), nll_loss")
    for r in rows:
        loss = f"{r['loss']:.6f}" if "loss" in r else "ERROR " + r.get("error", "")
        print(f"  {r['device']} ({r['backplane']}): loss {loss}  CPU {r['loss_cpu']:.6f}  "
              f"fallbacks {r.get('fallbacks', {}) or 'none'}  {'ok' if r['ok'] else 'FAILED'}")
    return rows


def wanted_indices(devices):
    """privateuseone indices whose Backplane device is named in `devices` ("cpu:0,opencl":
    devices or backend names, as `backplane run --devices`); every index when empty."""
    words = [w for w in devices.split(",") if w]
    return [i for i, d in enumerate(bt.devices())
            if not words or d in words or d.split(":")[0] in words]


def error_text(row):
    if "error" in row:
        return "ERROR"
    if "max_abs_err" not in row:
        return "(expected)"
    text = f"{row['max_abs_err']:.3g}"
    return text if row["ok"] else text + " FAIL"


def fallback_text(row):
    if "fallbacks" not in row:
        return ""
    return ", ".join(f"{op} x{n}" for op, n in row["fallbacks"].items()) or "none"


def print_table(rows):
    header = ["device", "backplane", "model", "max abs err", "ms/fwd", "fallbacks (per pass)"]
    lines = [[r["device"], r["backplane"], r["model"], error_text(r),
              f"{r['ms_per_forward']:.3f}" if "ms_per_forward" in r else "-",
              fallback_text(r)] for r in rows]
    widths = [max(len(x) for x in column) for column in zip(header, *lines)]
    for line in [header, *lines]:
        print("  ".join(x.ljust(w) for x, w in zip(line, widths)).rstrip())
    for r in rows:
        if "error" in r:
            print(f"{r['device']} ({r['backplane']}) {r['model']}: {r['error']}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", default="",
                        help="comma-separated Backplane devices or backends (default: all)")
    parser.add_argument("--iterations", type=int, default=10, help="timed passes per model")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="FILE", help="write the rows as JSON")
    args = parser.parse_args()
    # The table's last column reports what these warnings would say.
    warnings.filterwarnings("ignore", message="backplane.torch: .* runs on PyTorch's CPU")
    iterations = max(args.iterations, 1)

    print(f"PyTorch {torch.__version__} through backplane.torch: "
          + ", ".join(f"privateuseone:{i} -> {d}" for i, d in enumerate(bt.devices())))
    rows = []
    with torch.no_grad():
        for name in MODELS:
            expected, cpu_row = run_on_cpu(name, args.seed, iterations)
            rows.append(cpu_row)
            for index in wanted_indices(args.devices):
                rows.append(run_on_device(name, index, args.seed, iterations, expected))
    rows.sort(key=lambda r: (r["device"] != "cpu", r["device"]))  # device by device
    print_table(rows)
    training = training_run(args.seed, wanted_indices(args.devices))
    ok = all(r["ok"] for r in rows + training)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"ok": ok, "tolerance": TOLERANCE, "torch": torch.__version__,
                       "models": {name: describe(name) for name in MODELS}, "rows": rows,
                       "training": training},
                      f, indent=2)
            f.write("\n")
    print("all devices within the bound" if ok
          else "FAILED: a model failed or exceeded the bound (1e-4 x max(1, max |CPU|))")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
