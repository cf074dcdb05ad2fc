#!/usr/bin/env python3
"""The torch side of bench/gpu.cpp: the same figures with PyTorch on the same GPU, in the
same run (scripts/gpu-check runs both and prints the ratios). Prints one JSON object:
{"device": ..., "torch": version, "rows": [{"name", "unit", "value"}]}."""
import argparse
import json
import statistics
import time

import torch


def median_seconds(repeats, body, sync):
    body()
    sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        body()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--elements", type=int, default=256 << 20)
    parser.add_argument("--matmul", type=int, default=8192)
    args = parser.parse_args()
    dev = torch.device(args.device)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    # FP32 matmul in plain FP32, as bench/gpu.cpp's (torch's default since 1.12).
    torch.backends.cuda.matmul.allow_tf32 = False
    rows = []

    a = torch.full((args.elements,), 1.5, device=dev)
    b = torch.full((args.elements,), 2.0, device=dev)
    out = torch.empty_like(a)
    gb = args.elements * 4 / 1e9
    t = median_seconds(args.repeats, lambda: out.copy_(a), sync)
    rows.append({"name": "copy_gbps", "unit": "GB/s", "value": 2 * gb / t})
    t = median_seconds(args.repeats, lambda: torch.add(a, b, out=out), sync)
    rows.append({"name": "add_gbps", "unit": "GB/s", "value": 3 * gb / t})
    del a, b, out

    n = args.matmul
    for dtype, name in ((torch.float32, "matmul_f32_tflops"), (torch.bfloat16, "matmul_bf16_tflops")):
        gen = torch.Generator(device="cpu").manual_seed(1)
        x = (torch.rand((n, n), generator=gen) * 2 - 1).to(device=dev, dtype=dtype)
        y = (torch.rand((n, n), generator=gen) * 2 - 1).to(device=dev, dtype=dtype)
        z = torch.empty((n, n), device=dev, dtype=dtype)
        t = median_seconds(max(3, args.repeats // 2), lambda: torch.mm(x, y, out=z), sync)
        rows.append({"name": name, "unit": "TFLOP/s", "value": 2.0 * n ** 3 / t / 1e12})
        del x, y, z

    a = torch.full((1,), 1.5, device=dev)
    b = torch.full((1,), 2.0, device=dev)
    out = torch.empty_like(a)

    def synced():
        for _ in range(100):
            torch.add(a, b, out=out)
            sync()

    t = median_seconds(args.repeats, synced, sync)
    rows.append({"name": "add1_us", "unit": "us", "value": t / 100 * 1e6})
    ops = 10000

    def pipelined():
        for _ in range(ops):
            torch.add(a, b, out=out)

    t = median_seconds(args.repeats, pipelined, sync)
    rows.append({"name": "add1_pipelined_us", "unit": "us", "value": t / ops * 1e6})
    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"
    print(json.dumps({"device": args.device, "name": name, "torch": torch.__version__, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
