"""The bridge cases of op set v2's random ops and hardtanh (test_ops.py).

Random ops are seeded cases (op_cases.Case.seeded): each runs after torch.manual_seed and
must give the Backplane reference device's values, which every device shares
(docs/random.md); PyTorch's CPU generator draws another stream. They reach the Backplane
ops the way a user reaches them: Tensor.uniform_, normal_, random_ (three overloads),
bernoulli_ (p a float or a tensor), torch.rand/randn/randint, and native_dropout (functional
and out=) with its backward. hardtanh (F.hardtanh, F.relu6, in-place and out=) and its
backward are compared with PyTorch's CPU."""

import torch
import torch.nn.functional as F

from op_cases import ALL, FLOATS, Arg, const, out_arg

aten = torch.ops.aten


def random_cases(b):
    layouts = ["contiguous", "transposed", "stepped"]
    for i, dtype in enumerate(FLOATS):
        layout = layouts[i % 3]
        b.add("uniform_", dtype, lambda t: t.uniform_(-2, 3), b.t([5, 7], dtype, layout=layout),
              form="mutating", written=0, seeded=True)
        b.add("normal_", dtype, lambda t: t.normal_(0.5, 2.0), b.t([5, 7], dtype, layout=layout),
              form="mutating", written=0, seeded=True)
    for i, dtype in enumerate(ALL):
        layout = layouts[i % 3]
        top = 2 if dtype == "bool" else 100
        b.add("random_.from", dtype, lambda t, top=top: t.random_(0, top),
              b.t([4, 6], dtype, layout=layout), form="mutating", written=0, seeded=True)
        b.add("random_.to", dtype, lambda t, top=top: t.random_(top),
              b.t([4, 6], dtype, layout=layout), form="mutating", written=0, seeded=True)
        b.add("random_", dtype, lambda t: t.random_(), b.t([4, 6], dtype, layout=layout),
              form="mutating", written=0, seeded=True)
        b.add("bernoulli_.float", dtype, lambda t: t.bernoulli_(0.3),
              b.t([5, 7], dtype, layout=layout), form="mutating", written=0, seeded=True)
        b.add("bernoulli_.Tensor", dtype, lambda t, p: t.bernoulli_(p),
              b.t([5, 7], dtype, layout=layout), b.t([7], "f32", "unit"), form="mutating",
              written=0, seeded=True)
    factories = [("uniform_", "torch.rand", lambda device: torch.rand(3, 5, device=device)),
                 ("normal_", "torch.randn", lambda device: torch.randn(3, 5, device=device)),
                 ("random_.from", "torch.randint",
                  lambda device: torch.randint(-5, 5, (3, 5), device=device)),
                 ("bernoulli_.float", "F.dropout",
                  lambda device: F.dropout(torch.ones(3, 5, device=device), 0.4))]
    for op, label, call in factories:
        b.add(op, label, call, device_arg=True, seeded=True)
    for dtype in FLOATS:
        x = b.t([6, 5], dtype, "special")
        b.add("native_dropout", dtype, lambda x: aten.native_dropout(x, 0.3, True), x,
              seeded=True)
        b.add("native_dropout", f"{dtype}-eval", lambda x: aten.native_dropout(x, 0.3, False), x,
              seeded=True)
    b.add("native_dropout", "f32-out",
          lambda x, o0, o1: tuple(aten.native_dropout.out(x, 0.5, True, out0=o0, out1=o1)),
          b.t([4, 5], "f32"),
          *[out_arg(b.gen, meta) for meta in [([4, 5], torch.float32), ([4, 5], torch.bool)]],
          form="out", written=(1, 2), seeded=True)
    grad, mask = b.t([4, 5], "f32", "special"), b.t([4, 5], "bool")
    b.functional("native_dropout_backward", "f32", aten.native_dropout_backward,
                 [grad, mask, 1.25])
    b.out("native_dropout_backward", "f32", aten.native_dropout_backward.out, [grad, mask, 1.25])


def hardtanh_cases(b):
    for dtype in [d for d in ALL if d not in ("bool", "f16")]:  # PyTorch 1.13: no f16 kernel
        low = 0 if dtype == "u8" else -1
        b.functional("hardtanh", dtype, F.hardtanh, [b.t([5, 7], dtype, "special"), low, 1])
    b.functional("hardtanh", "f32-relu6", F.relu6, [b.t([5, 7], "f32", "special")])
    b.in_place("hardtanh", "f32-relu6-inplace", lambda x: F.relu6(x, inplace=True),
               [b.t([5, 7], "f32", "special")])
    b.in_place("hardtanh", "f64-hardtanh_", aten.hardtanh_, [b.t([4, 6], "f64", "special"), -2, 2])
    b.out("hardtanh", "f32", aten.hardtanh.out, [b.t([4, 6], "f32", "special"), 0.0, 6.0])
    # self at and beyond the limits, no NaN: PyTorch's result for NaN depends on the tensor's
    # size (hardtanh-backward-nan in docs/ops.md).
    edges = [0.0, 6.0, -0.0, float("inf"), -float("inf"), 3.0, 7.0, -1.0, 5.999, 1e-30] * 2
    for dtype in ["f32", "f64"]:
        grad, x = b.t([4, 5], dtype), const(edges, dtype)
        b.functional("hardtanh_backward", dtype, aten.hardtanh_backward,
                     [grad, Arg(x.base.reshape(4, 5)), 0.0, 6.0])
    b.out("hardtanh_backward", "f32", aten.hardtanh_backward.grad_input,
          [b.t([20], "f32"), const(edges, "f32"), 0.0, 6.0])
