#!/usr/bin/env python3
"""The cost of the PyTorch bridge: the same PyTorch code on privateuseone (the Backplane
device cpu:0, through backplane.torch) and on PyTorch's own CPU kernels, measured side by
side in one run. scripts/bench runs it through bench/report.py (rows in bench/targets.toml);
docs/pytorch.md describes the bridge.

  PYTHONPATH=build/default/python /usr/bin/python3 bench/torch_bridge.py [--quick] [--json FILE]

  add_1        `a + b` on 1-element float32 tensors: the bridge's per-call overhead
               (target: ratio <= 1.5)
  mlp          the MLP of examples/pytorch/run_models.py, forward (target: ratio <= 1.0)
  transformer  the transformer block of examples/pytorch/run_models.py (TransformerEncoderLayer,
               eval, batch_first, causal mask), forward (target: ratio <= 1.0)
  mlp_train, transformer_train
               one training step of those models: zero_grad, forward, mse_loss against a
               fixed target, backward, SGD with momentum (docs/training.md; target: ratio
               <= 1.0)
  resnet18, resnet18_train
               torchvision's resnet18 of examples/pytorch/run_models.py ([1, 3, 64, 64]):
               forward in eval mode, and one training step in train mode (batch norm over
               the batch, its running statistics updated); target: ratio <= 1.0. Skipped
               without torchvision.

ratio = bridge time / PyTorch CPU time, each the median of many repetitions timed with
time.perf_counter_ns. The variants are interleaved (each repetition runs both, in a random
order) so that a slow spell of a shared machine hits both alike. Forward passes run under
torch.no_grad() and do not read their output back: cpu:0 has no queue, its kernels have
finished when the call returns. The threads are PyTorch's default (OMP_NUM_THREADS sets them,
for PyTorch and the Backplane CPU plugin alike).

Prints one line per benchmark; --json FILE writes {"device", "torch", "threads",
"benchmarks": {name: {"bridge_ns", "torch_ns", "ratio", "target", "met", ...}}}. The exit
status is 0 whether or not the targets are met (they are figures, not tests); 1 when the
bridge cannot run the benchmark (no cpu:0, a result that differs from PyTorch's).
"""
import argparse
import copy
import json
import os
import random
import statistics
import sys
import time
import warnings

# No __pycache__ in the source tree (examples/pytorch/run_models.py is imported).
sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples", "pytorch"))

import torch  # noqa: E402

import backplane.torch as bt  # noqa: E402
import run_models  # noqa: E402  (the models and their sizes)

TARGETS = {"add_1": "ratio <= 1.5", "mlp": "ratio <= 1.0", "transformer": "ratio <= 1.0",
           "mlp_train": "ratio <= 1.0", "transformer_train": "ratio <= 1.0",
           "resnet18": "ratio <= 1.0", "resnet18_train": "ratio <= 1.0"}


def cpu_index():
    """The privateuseone index mapped to Backplane's cpu:0."""
    devices = bt.devices()
    if "cpu:0" not in devices:
        sys.exit(f"bench/torch_bridge.py: cpu:0 is not mapped ({devices}); is the CPU plugin "
                 "built, and does BACKPLANE_DEVICE admit it?")
    return devices.index("cpu:0")


def interleaved_medians(variants, repetitions, inner):
    """Median ns per call of each of `variants` ({name: callable}). Every repetition runs each
    variant once, in a shuffled order, timing `inner` calls together."""
    samples = {name: [] for name in variants}
    order = list(variants)
    for _ in range(repetitions):
        random.shuffle(order)
        for name in order:
            body = variants[name]
            start = time.perf_counter_ns()
            for _ in range(inner):
                body()
            samples[name].append((time.perf_counter_ns() - start) / inner)
    return {name: statistics.median(times) for name, times in samples.items()}


def warm_up(variants, calls=3):
    for body in variants.values():
        for _ in range(calls):
            body()


def check_same(name, bridge, expected):
    """Exits when the bridge's output is not PyTorch's (a ratio of wrong results means
    nothing); the bound is run_models.py's."""
    error = run_models.max_abs_difference(bridge().cpu(), expected())
    bound = run_models.TOLERANCE * max(1.0, expected().abs().max().item())
    if not error <= bound:
        sys.exit(f"bench/torch_bridge.py: {name}: the bridge's output differs from PyTorch's "
                 f"by {error:.3g} (bound {bound:.3g})")


def add_1(device, scale):
    a, b = torch.tensor([1.5]), torch.tensor([2.0])
    da, db = a.to(device), b.to(device)
    variants = {"bridge": lambda: da + db, "torch": lambda: a + b}
    check_same("add_1", variants["bridge"], variants["torch"])
    return variants, {"repetitions": 300 // scale, "inner": 100 // scale}


def model_variants(build, device):
    model, x = build(0)
    on_device, dx = copy.deepcopy(model).to(device), x.to(device)
    return {"bridge": lambda: on_device(dx), "torch": lambda: model(x)}


def mlp(device, scale):
    variants = model_variants(run_models.build_mlp, device)
    check_same("mlp", variants["bridge"], variants["torch"])
    return variants, {"repetitions": 200 // scale, "inner": 1}


def transformer(device, scale):
    variants = model_variants(run_models.build_transformer, device)
    check_same("transformer", variants["bridge"], variants["torch"])
    return variants, {"repetitions": 100 // scale, "inner": 1}


def training_step(model, x, target, optimizer):
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), target)
    loss.backward()
    optimizer.step()
    return loss.detach()


def training_variants(name, build, device, train_mode=False):
    """One training step of the model on each side, from the same weights (in train mode
    when `train_mode`). Both sides take the same number of steps (interleaved_medians runs
    each once per repetition), so their weights stay alike; the first step's losses must
    agree."""
    model, x = build(0)
    model.train(train_mode)
    with torch.no_grad():
        target = torch.randn_like(model(x))
    on_device = copy.deepcopy(model).to(device)
    dx, dtarget = x.to(device), target.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    on_device_optimizer = torch.optim.SGD(on_device.parameters(), lr=1e-3, momentum=0.9)
    variants = {"bridge": lambda: training_step(on_device, dx, dtarget, on_device_optimizer),
                "torch": lambda: training_step(model, x, target, optimizer)}
    got, want = variants["bridge"]().item(), variants["torch"]().item()
    if not abs(got - want) <= run_models.TOLERANCE * max(1.0, abs(want)):
        sys.exit(f"bench/torch_bridge.py: {name}: the bridge's loss {got} is not PyTorch's "
                 f"{want}")
    return variants


def mlp_train(device, scale):
    return training_variants("mlp_train", run_models.build_mlp, device), \
        {"repetitions": 100 // scale, "inner": 1}


def transformer_train(device, scale):
    return training_variants("transformer_train", run_models.build_transformer, device), \
        {"repetitions": 50 // scale, "inner": 1}


def resnet18(device, scale):
    variants = model_variants(run_models.build_resnet18, device)
    check_same("resnet18", variants["bridge"], variants["torch"])
    return variants, {"repetitions": 40 // scale, "inner": 1}


def resnet18_train(device, scale):
    return training_variants("resnet18_train", run_models.build_resnet18, device,
                             train_mode=True), {"repetitions": 20 // scale, "inner": 1}


def measure(name, make, device, scale):
    """One benchmark: its medians, ratio and target, and the aten operators that ran on
    PyTorch's CPU kernels in its bridge calls (counted per call)."""
    variants, plan = make(device, scale)
    warm_up(variants)
    bt.reset_fallback_counts()
    variants["bridge"]()
    fallbacks = dict(sorted(bt.fallback_counts().items()))
    medians = interleaved_medians(variants, plan["repetitions"], plan["inner"])
    ratio = medians["bridge"] / medians["torch"]
    bound = float(TARGETS[name].split()[-1])
    return {"bridge_ns": medians["bridge"], "torch_ns": medians["torch"], "ratio": ratio,
            "target": TARGETS[name], "met": ratio <= bound, "fallbacks_per_call": fallbacks,
            **plan}


def show(name, r):
    unit, scale = ("ns", 1) if r["bridge_ns"] < 1e5 else ("ms", 1e6)
    fallbacks = ", ".join(f"{op.removeprefix('aten::')} x{n}"
                          for op, n in r["fallbacks_per_call"].items())
    print(f"{name:<12} bridge {r['bridge_ns'] / scale:10.3f} {unit}  torch "
          f"{r['torch_ns'] / scale:10.3f} {unit}  ratio {r['ratio']:6.3f}  "
          f"({r['target']}: {'met' if r['met'] else 'missed'})"
          + (f"  CPU fallbacks per call: {fallbacks}" if fallbacks else ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="a few repetitions only (checks the program, not the figures)")
    parser.add_argument("--json", metavar="FILE", help="write the medians and ratios as JSON")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message="backplane.torch: .* runs on PyTorch's CPU")
    index = cpu_index()
    device = torch.device("privateuseone", index)
    scale = 20 if args.quick else 1
    print(f"torch_bridge: privateuseone:{index} ({bt.device_name(index)}) against PyTorch "
          f"{torch.__version__}'s CPU, {torch.get_num_threads()} thread(s)")
    results = {}
    vision = "resnet18" in run_models.MODELS
    with torch.no_grad():
        for name, make in (("add_1", add_1), ("mlp", mlp), ("transformer", transformer)) + (
                (("resnet18", resnet18),) if vision else ()):
            results[name] = measure(name, make, device, scale)
            show(name, results[name])
    for name, make in (("mlp_train", mlp_train), ("transformer_train", transformer_train)) + (
            (("resnet18_train", resnet18_train),) if vision else ()):
        results[name] = measure(name, make, device, scale)
        show(name, results[name])
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": f"privateuseone:{index}", "backplane": bt.device_name(index),
                       "torch": torch.__version__, "threads": torch.get_num_threads(),
                       "benchmarks": results}, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
