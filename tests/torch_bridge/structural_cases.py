"""The cases of test_ops.py for the ops that move, select, reduce or combine whole tensors:
cat, indexing, reductions, matmul, softmax, factories, the tensor basics (copies, fills, views),
out= tensors of the wrong shape and layer_norm. Each *_cases(b) adds its cases to a Builder
(op_cases.py), in a fixed order: the seeded inputs depend on it.
"""

import torch
import torch.nn.functional as F

from op_cases import ALL, DTYPES, FLOATS, NAN, Arg, const, out_arg, tensor, with_out  # noqa: F401

aten = torch.ops.aten


def cat_cases(b):
    for dtype in ALL:
        b.functional("cat", dtype, torch.cat, [[b.t([2, 3], dtype, "special"),
                                                b.t([4, 3], dtype, "special")]])
    b.functional("cat", "f32-dim1-views", lambda ts: torch.cat(ts, dim=-1),
                 [[b.t([3, 2], "f32", layout="transposed"), b.t([3, 4], "f32", layout="stepped"),
                   b.t([3, 1], "f32")]])
    b.functional("cat", "mixed", torch.cat, [[b.t([2, 3], "i32"), b.t([1, 3], "f16"),
                                              b.t([1, 3], "bool")]])
    b.functional("cat", "f32-legacy-empty", torch.cat, [[b.t([0], "f32"), b.t([2, 3], "f32")]])
    b.functional("cat", "f32-all-empty", torch.cat, [[b.t([0, 3], "f32"), b.t([0, 3], "f32")]])
    b.functional("cat", "f32-one", torch.cat, [[b.t([2, 3], "f32")]])
    b.functional("cat", "f32-0d", torch.cat, [[b.t([], "f32"), b.t([], "f32")]])
    b.functional("cat", "f32-bad-shapes", torch.cat, [[b.t([2, 3], "f32"), b.t([2, 4], "f32")]])
    b.out("cat", "f32", torch.cat, [[b.t([2, 3], "f32"), b.t([1, 3], "f32")]])
    b.out("cat", "i64-dim1", lambda ts, out=None: torch.cat(ts, 1, out=out),
          [[b.t([2, 3], "i64"), b.t([2, 1], "i64")]])


def index(b, shape, size, dtype="i64"):
    """An index Arg of `shape` with values in [0, size)."""
    return Arg(torch.randint(0, size, shape, generator=b.gen).to(DTYPES[dtype]))


def indexing_cases(b):
    for dtype in ALL:
        b.functional("index_select", dtype, torch.index_select,
                     [b.t([4, 3], dtype, "special"), 0, index(b, [5], 4)])
        b.functional("gather", dtype, torch.gather,
                     [b.t([3, 4], dtype, "special"), 1, index(b, [3, 6], 4)])
        b.functional("embedding", dtype, F.embedding,
                     [index(b, [2, 3], 5), b.t([5, 4], dtype, "special")])
    b.functional("index_select", "f32-dim1-i32", torch.index_select,
                 [b.t([3, 4], "f32", layout="transposed"), -1, index(b, [6], 4, "i32")])
    b.functional("index_select", "f32-0d-index", torch.index_select,
                 [b.t([3, 4], "f32", layout="stepped"), 1, Arg(torch.tensor(2))])
    b.functional("index_select", "f32-empty-index", torch.index_select,
                 [b.t([3, 4], "f32"), 0, index(b, [0], 3)])
    b.functional("index_select", "f32-out-of-range", torch.index_select,
                 [b.t([3, 4], "f32"), 0, Arg(torch.tensor([0, 3]))])
    b.out("index_select", "f32", torch.index_select, [b.t([4, 3], "f32"), 0, index(b, [2], 4)])
    b.functional("gather", "f32-dim0-views", torch.gather,
                 [b.t([4, 3], "f32", layout="transposed"), 0,
                  Arg(torch.randint(0, 4, (2, 5), generator=b.gen), lambda t: t.t())])
    b.functional("gather", "f32-0d", torch.gather, [b.t([], "f32"), 0, Arg(torch.tensor(0))])
    b.functional("gather", "f32-out-of-range", torch.gather,
                 [b.t([3, 4], "f32"), 1, Arg(torch.tensor([[0], [4], [1]]))])
    b.functional("gather", "f32-i32-index", torch.gather,
                 [b.t([3, 4], "f32"), 1, index(b, [3, 2], 4, "i32")])
    b.out("gather", "f32", torch.gather, [b.t([3, 4], "f32"), 1, index(b, [3, 2], 4)])
    b.functional("embedding", "f32-i32-index", F.embedding,
                 [index(b, [4], 5, "i32"), b.t([5, 3], "f32")])
    b.functional("embedding", "f32-0d-index", F.embedding,
                 [Arg(torch.tensor(3)), b.t([5, 3], "f32", layout="transposed")])
    b.functional("embedding", "f32-padding", lambda i, w: F.embedding(i, w, padding_idx=1),
                 [index(b, [6], 5), b.t([5, 3], "f32")])
    b.functional("embedding", "f32-out-of-range", F.embedding,
                 [Arg(torch.tensor([1, 5])), b.t([5, 3], "f32")])
    b.out("embedding", "f32", aten.embedding.out, [b.t([5, 3], "f32"), index(b, [2, 2], 5)],
          functional=aten.embedding)


def reduction_tol(op):
    return "accum" if op in ("sum.dim_IntList", "prod.dim_int", "prod", "mean.dim") else "exact"


def reduction_cases(b):
    full = {"sum.dim_IntList": torch.sum, "prod": torch.prod, "mean.dim": torch.mean,
            "all": torch.all, "any": torch.any, "argmax": torch.argmax, "argmin": torch.argmin,
            "amax": lambda x: torch.amax(x, ()), "amin": lambda x: torch.amin(x, ())}
    by_dim = {"sum.dim_IntList": torch.sum, "prod.dim_int": torch.prod, "mean.dim": torch.mean,
              "all.dim": torch.all, "any.dim": torch.any, "argmax": torch.argmax,
              "argmin": torch.argmin, "amax": torch.amax, "amin": torch.amin}
    for op, fn in full.items():
        kind = "unit" if op == "prod" else "special"
        for dtype in ALL:
            b.functional(op, dtype, fn, [b.t([3, 5], dtype, kind)], reduction_tol(op))
        b.functional(op, "f32-0d", fn, [b.t([], "f32")], reduction_tol(op))
        b.functional(op, "f32-empty", fn, [b.t([0, 3], "f32")], reduction_tol(op))
        b.functional(op, "f32-transposed", fn, [b.t([3, 5], "f32", kind, "transposed")],
                     reduction_tol(op))
    for op, fn in by_dim.items():
        kind = "unit" if op.startswith("prod") else "special"
        for dtype in ALL:
            b.functional(op, f"{dtype}-dim", fn, [b.t([3, 5], dtype, kind), 1],
                         reduction_tol(op))
        for label, args in [("f32-keepdim", [b.t([3, 5], "f32", kind), 0, True]),
                            ("f32-dim-views", [b.t([4, 3], "f32", kind, "stepped"), -1]),
                            ("f32-0d-dim", [b.t([], "f32", kind), 0]),
                            ("f32-empty-dim", [b.t([0, 3], "f32", kind), 1]),
                            ("f32-empty-reduced", [b.t([0, 3], "f32", kind), 0])]:
            b.functional(op, label, fn, args, reduction_tol(op))
        b.out(op, "f32-dim", fn, [b.t([3, 5], "f32", kind), 1], reduction_tol(op))
        b.out(op, "i32-dim", fn, [b.t([3, 5], "i32", kind), 0, True], reduction_tol(op))
    for op, fn in [("sum.dim_IntList", torch.sum), ("mean.dim", torch.mean),
                   ("amax", torch.amax), ("amin", torch.amin)]:
        b.functional(op, "f32-dims", fn, [b.t([2, 3, 4], "f32", "special"), (0, 2)],
                     reduction_tol(op))
        b.functional(op, "f32-no-dims", fn, [b.t([2, 3], "f32", "special"), []],
                     reduction_tol(op))
    b.functional("sum.dim_IntList", "i32-dtype-f64", lambda x: torch.sum(x, dtype=torch.float64),
                 [b.t([3, 5], "i32", "special")], "accum")
    b.functional("sum.dim_IntList", "f16-dim-dtype-f32",
                 lambda x: torch.sum(x, 1, dtype=torch.float32), [b.t([3, 5], "f16")], "accum")
    b.functional("mean.dim", "i32-dtype-f32", lambda x: torch.mean(x, 1, dtype=torch.float32),
                 [b.t([3, 5], "i32")], "accum")
    b.functional("prod.dim_int", "i32-dtype-i64", lambda x: torch.prod(x, 0, dtype=torch.int64),
                 [b.t([3, 5], "i32")], "accum")
    b.out("sum.dim_IntList", "f32-all", aten.sum.out, [b.t([3, 5], "f32")], "accum",
          functional=torch.sum)
    b.out("mean.dim", "f32-all", aten.mean.out, [b.t([3, 5], "f32"), []], "accum",
          functional=torch.mean)
    b.out("prod", "f32-all", aten.prod.out, [b.t([3, 5], "f32", "unit")], "accum",
          functional=torch.prod)
    b.out("argmax", "f32-all", torch.argmax, [b.t([3, 5], "f32")])
    b.out("argmin", "i32-all", torch.argmin, [b.t([3, 5], "i32")])
    b.out("all", "f32-all", torch.all, [b.t([3, 5], "f32", "special")])
    b.out("any", "u8-all", torch.any, [b.t([3, 5], "u8", "small")])
    b.functional("argmax", "f32-nan", torch.argmax, [const([1.0, NAN, 3.0, NAN], "f32")])
    b.functional("amax", "f32-nan", lambda x: torch.amax(x, 0), [const([1.0, NAN, 3.0], "f32")])


def matmul_cases(b):
    for dtype in ALL:
        b.functional("matmul", f"{dtype}-mm", torch.mm,
                     [b.t([3, 4], dtype, "small"), b.t([4, 5], dtype, "small")], "accum")
        b.functional("matmul", f"{dtype}-bmm", torch.bmm,
                     [b.t([2, 3, 4], dtype, "small"), b.t([2, 4, 2], dtype, "small")], "accum")
        b.functional("addmm", dtype, torch.addmm, [b.t([5], dtype, "small"),
                                                   b.t([3, 4], dtype, "small"),
                                                   b.t([4, 5], dtype, "small")], "accum")
    b.functional("matmul", "f32-mm-views", torch.mm,
                 [b.t([3, 4], "f32", layout="transposed"), b.t([4, 5], "f32", layout="stepped")],
                 "accum")
    b.functional("matmul", "f32-matmul-2d", torch.matmul, [b.t([3, 4], "f32"),
                                                           b.t([4, 2], "f32")], "accum")
    b.functional("matmul", "f32-matmul-3d", torch.matmul, [b.t([2, 3, 4], "f32"),
                                                           b.t([2, 4, 2], "f32")], "accum")
    b.functional("matmul", "f32-mm-empty-k", torch.mm, [b.t([3, 0], "f32"), b.t([0, 2], "f32")],
                 "accum")
    b.functional("matmul", "f32-mm-empty-n", torch.mm, [b.t([0, 4], "f32"), b.t([4, 2], "f32")],
                 "accum")
    b.functional("matmul", "f32-mm-nan", torch.mm,
                 [b.t([3, 4], "f32", "special"), b.t([4, 2], "f32")], "accum")
    b.functional("matmul", "f32-f64-mm", torch.mm, [b.t([3, 4], "f32"), b.t([4, 2], "f64")])
    b.functional("matmul", "f32-mm-bad-shapes", torch.mm, [b.t([3, 4], "f32"),
                                                           b.t([3, 2], "f32")])
    b.out("matmul", "f32-mm", torch.mm, [b.t([3, 4], "f32"), b.t([4, 5], "f32")], "accum")
    b.out("matmul", "i64-bmm", torch.bmm, [b.t([2, 3, 4], "i64"), b.t([2, 4, 2], "i64")])
    b.functional("addmm", "f32-coefficients", lambda c, x, y: torch.addmm(c, x, y, beta=0.5,
                                                                          alpha=-2),
                 [b.t([3, 1], "f32"), b.t([3, 4], "f32"), b.t([4, 2], "f32")], "accum")
    b.functional("addmm", "f32-beta-0-nan", lambda c, x, y: torch.addmm(c, x, y, beta=0),
                 [const([NAN, 1.0], "f32"), b.t([3, 4], "f32"), b.t([4, 2], "f32")], "accum")
    b.functional("addmm", "i32-coefficients", lambda c, x, y: torch.addmm(c, x, y, beta=2,
                                                                          alpha=3),
                 [b.t([2], "i32"), b.t([3, 4], "i32"), b.t([4, 2], "i32")])
    b.functional("addmm", "f32-views", torch.addmm,
                 [b.t([3, 2], "f32", layout="transposed"), b.t([3, 4], "f32", layout="stepped"),
                  b.t([4, 2], "f32", layout="transposed")], "accum")
    b.functional("addmm", "f32-linear", F.linear, [b.t([3, 4], "f32"), b.t([2, 4], "f32"),
                                                   b.t([2], "f32")], "accum")
    b.out("addmm", "f32", torch.addmm, [b.t([3, 2], "f32"), b.t([3, 4], "f32"),
                                        b.t([4, 2], "f32")], "accum")
    b.in_place("addmm", "f32-inplace", torch.Tensor.addmm_,
               [b.t([3, 2], "f32"), b.t([3, 4], "f32"), b.t([4, 2], "f32")], "accum")
    b.in_place("addmm", "f32-inplace-alpha", lambda c, x, y: c.addmm_(x, y, alpha=0.5),
               [b.t([3, 2], "f32", layout="transposed"), b.t([3, 4], "f32"),
                b.t([4, 2], "f32")], "accum")
    for dtype in ["f32", "f64", "bf16", "i32"]:
        b.out("linear", dtype, aten.linear.out,
              [b.t([3, 4], dtype, "small"), b.t([2, 4], dtype, "small"),
               b.t([2], dtype, "small")], "accum", functional=F.linear)
    b.out("linear", "f32-3d-no-bias", aten.linear.out,
          [b.t([2, 3, 4], "f32"), b.t([5, 4], "f32"), None], "accum", functional=F.linear)


def softmax_cases(b):
    for op, fn, name in [("softmax.int", torch.softmax, "_softmax"),
                         ("log_softmax.int", torch.log_softmax, "_log_softmax")]:
        for dtype in ALL:
            b.functional(op, dtype, fn, [b.t([3, 5], dtype, "special"), 1], "accum")
        b.functional(op, "f32-dim0-views", fn, [b.t([4, 3], "f32", layout="transposed"), 0],
                     "accum")
        b.functional(op, "f32-0d", fn, [b.t([], "f32"), 0], "accum")
        b.functional(op, "f32-empty", fn, [b.t([0, 3], "f32"), 1], "accum")
        b.functional(op, "f32-big", fn, [const([[100.0, 0.0, -100.0, 1e4]], "f32"), -1],
                     "accum")
        b.functional(op, "i32-dtype-f32", lambda x, f=fn: f(x, 1, dtype=torch.float32),
                     [b.t([3, 5], "i32")], "accum")
        b.out(op, "f32-aten", getattr(aten, name).out, [b.t([3, 5], "f32"), 1, False], "accum",
              functional=getattr(aten, name))
        b.out(op, "f64-int", getattr(aten, op.split(".")[0]).int_out, [b.t([3, 5], "f64"), 0],
              "accum", functional=fn)


def factory_cases(b):
    def start_step(start, end, step, dtype=None, device=None):
        return aten.arange.start_step(start, end, step, dtype=dtype, device=device)

    for dtype in ALL:
        if dtype in FLOATS:
            args = [-1.0, 1.0, 0.25]
        else:
            args = [0, 10, 3] if dtype in ("u8", "bool") else [-7, 9, 4]
        b.add("arange.start_step", dtype, start_step, *args, DTYPES[dtype], device_arg=True)
    b.add("arange.start_step", "i64-default", start_step, 5, -5, -2, device_arg=True)
    b.add("arange.start_step", "f32-float-args", start_step, 0, 1.5, 0.5, device_arg=True)
    b.add("arange.start_step", "i64-empty", start_step, 3, 3, 1, device_arg=True)
    b.add("arange.start_step", "i64-zero-step", start_step, 0, 3, 0, device_arg=True)
    b.add("arange.start_step", "i64-python-api",
          lambda s, e, st, device: torch.arange(s, e, st, device=device), 0, 10, 3,
          device_arg=True)
    b.add("arange.start_step", "f32-python-api",
          lambda device: torch.arange(-1.5, 1.0, 0.5, device=device), device_arg=True)
    for layout, dtype in [("empty", "i64"), ("contiguous", "f32"), ("empty", "f64"),
                          ("contiguous", "i16")]:
        b.add("arange.start_step", f"{dtype}-out-{layout}",
              lambda o: torch.arange(0, 10, 3, out=o),
              out_arg(b.gen, ([4], DTYPES[dtype]), layout), form="out", written=0)
    op = "fill_.Tensor"
    for dtype in ALL:
        value = b.t([], dtype, "special")
        b.add(op, dtype, torch.Tensor.fill_, b.t([3, 4], dtype), value, form="mutating",
              written=0)
    b.add(op, "f32-from-i64", torch.Tensor.fill_, b.t([3, 4], "f32", layout="transposed"),
          b.t([], "i64"), form="mutating", written=0)
    b.add(op, "i32-from-f64", torch.Tensor.fill_, b.t([5], "i32", layout="stepped"),
          b.t([], "f64"), form="mutating", written=0)
    b.add(op, "f32-cpu-value", torch.Tensor.fill_, b.t([3, 4], "f32"),
          torch.tensor(-0.0), form="mutating", written=0)
    b.add(op, "f32-1d-value", torch.Tensor.fill_, b.t([3], "f32"), b.t([1], "f32"),
          form="mutating", written=0)


def basics_cases(b):
    """copy_ and fill_.Scalar: the tensor basics, reached through .to(), copy_ and fill_."""
    for dtype in ALL:
        kind = "special" if dtype in FLOATS else "normal"
        for layout in ["contiguous", "transposed", "stepped"]:
            b.functional("copy_", f"{dtype}-to-{layout}", lambda x: x,
                         [b.t([3, 4], dtype, kind, layout)])
        b.functional("copy_", f"{dtype}-0d", lambda x: x, [b.t([], dtype, kind)])
        b.functional("copy_", f"{dtype}-contiguous", torch.Tensor.contiguous,
                     [b.t([3, 4], dtype, kind, "transposed")])
    for src in ALL:
        for dst in ALL:
            kind = "special" if src in FLOATS and dst in FLOATS else "positive"
            b.add("copy_", f"{src}-into-{dst}", torch.Tensor.copy_,
                  b.t([3, 4], dst, layout="transposed"), b.t([3, 4], src, kind, "stepped"),
                  form="mutating", written=0)
    b.add("copy_", "f32-broadcast", torch.Tensor.copy_, b.t([3, 4], "f32"), b.t([4], "f64"),
          form="mutating", written=0)
    b.add("copy_", "f32-from-cpu", torch.Tensor.copy_, b.t([3, 4], "f32", layout="stepped"),
          torch.arange(12.0).reshape(3, 4), form="mutating", written=0)
    fills = [("bool", "true", True), ("u8", "7", 7), ("u8", "minus-255", -255),
             ("i8", "minus-100", -100), ("i8", "300", 300), ("i16", "minus-3", -3),
             ("i32", "2.5", 2.5), ("i64", "2-pow-40", 2**40), ("f16", "2.5", 2.5),
             ("f16", "1e6", 1e6), ("bf16", "minus-0", -0.0), ("f32", "nan", NAN),
             ("f32", "minus-inf", -float("inf")), ("f64", "third", 1 / 3), ("f32", "true", True)]
    for dtype, label, value in fills:
        b.add("fill_.Scalar", f"{dtype}-{label}", torch.Tensor.fill_,
              b.t([3, 4], dtype, layout="transposed"), value, form="mutating", written=0)
    b.add("fill_.Scalar", "f32-zero_", torch.Tensor.zero_, b.t([3, 4], "f32", layout="stepped"),
          form="mutating", written=0)
    for dtype in ["f32", "i64", "bool"]:
        b.add("fill_.Scalar", f"{dtype}-full",
              lambda device, d=DTYPES[dtype]: torch.full((2, 3), 1, dtype=d, device=device),
              device_arg=True)


def wrong_shape_out_cases(b):
    """An out= with elements but the wrong shape: PyTorch resizes it (and warns)."""
    wrong = Arg(torch.zeros(5))
    b.add("add.Tensor", "f32-out-wrong-shape", with_out(torch.add), b.t([3, 4], "f32"),
          b.t([3, 4], "f32"), wrong, form="out", written=2)
    b.add("exp", "f32-out-wrong-shape", with_out(torch.exp), b.t([3, 4], "f32"), wrong,
          form="out", written=1, tol="math")
    b.add("sum.dim_IntList", "f32-out-wrong-shape", with_out(torch.sum), b.t([3, 4], "f32"), 1,
          wrong, form="out", written=2, tol="accum")


def norm_cases(b):
    """layer_norm: not an aten primitive in 1.13; it runs on the CPU fallback (see
    test_layer_norm_runs_on_the_fallback)."""
    for dtype in ["f32", "f64", "bf16"]:
        b.functional("layer_norm", dtype,
                     lambda x, w, c: F.layer_norm(x, (4,), w, c),
                     [b.t([3, 4], dtype), b.t([4], dtype), b.t([4], dtype)], "accum")


def grad_input(overload):
    """An aten .grad_input overload as an out= function: overload(*args, grad_input=out)."""
    return lambda *a, out, **kwargs: overload(*a, grad_input=out, **kwargs)


def training_cases(b):
    """The training op set: activation and softmax gradients, losses and their gradients, and
    the optimizers' pointwise ops (addcmul, addcdiv, lerp), through the aten overloads
    autograd and torch.optim call."""
    activation_gradient_cases(b)
    softmax_gradient_cases(b)
    loss_cases(b)
    optimizer_pointwise_cases(b)


def activation_gradient_cases(b):
    op, fn = "threshold_backward", aten.threshold_backward
    for dtype in ALL:  # bool: refused by both
        b.functional(op, dtype, fn, [b.t([3, 4], dtype, "special"),
                                     b.t([3, 4], dtype, "special"), 0])
    for label, args in [
            ("f32-views-broadcast", [b.t([4, 3], "f32", "special", "transposed"),
                                     b.t([3], "f32", "special", "stepped"), 0.5]),
            ("i32-f32", [b.t([3, 4], "i32"), b.t([3, 4], "f32"), 1]),
            ("f32-0d", [b.t([], "f32"), b.t([5], "f32"), -1.5]),
            ("f32-empty", [b.t([0, 3], "f32"), b.t([0, 3], "f32"), 0]),
            ("i8-threshold-overflow", [b.t([3], "i8"), b.t([3], "i8"), 300])]:
        b.functional(op, label, fn, args)
    for dtype in ["f32", "i64"]:
        b.out(op, dtype, grad_input(aten.threshold_backward.grad_input),
              [b.t([3, 4], dtype, "special"), b.t([3, 4], dtype, "special"), 0], functional=fn)
    # The others are floating only. PyTorch 1.13's f32/bf16 gelu_backward (oneDNN) refuses
    # operands it would broadcast or convert, so its cases have equal shapes and floating
    # operands; its bf16 kernel computes in bf16 steps ("accum" tolerance).
    for name, x_kind in [("gelu_backward", "normal"), ("silu_backward", "normal"),
                         ("sigmoid_backward", "unit"), ("tanh_backward", "unit")]:
        overload = getattr(aten, name)
        forms = [{"approximate": "none"}, {"approximate": "tanh"}] if name == "gelu_backward" \
            else [{}]
        for kwargs in forms:
            tag = f"-{kwargs['approximate']}" if kwargs else ""
            fn = (lambda g, x, o=overload, k=kwargs: o(g, x, **k))
            if name != "silu_backward":  # aten::silu_backward is mapped in its out form only
                for dtype in FLOATS:
                    b.functional(name, f"{dtype}{tag}", fn,
                                 [b.t([3, 4], dtype), b.t([3, 4], dtype, x_kind)], "accum")
                b.functional(name, f"f32{tag}-views", fn,
                             [b.t([4, 3], "f32", layout="transposed"),
                              b.t([4, 3], "f32", x_kind, "stepped")], "accum")
                # NaN and infinite gradients where every derivative is moderate.
                b.functional(name, f"f64{tag}-special", fn,
                             [b.t([3, 4], "f64", "special"), b.t([3, 4], "f64", "unit")],
                             "accum")
                b.functional(name, f"f32{tag}-0d", fn, [b.t([], "f32"), b.t([], "f32")],
                             "accum")
                b.functional(name, f"f32{tag}-empty", fn,
                             [b.t([0, 3], "f32"), b.t([0, 3], "f32")], "accum")
                b.functional(name, f"f32-f64{tag}", fn,
                             [b.t([3, 4], "f32"), b.t([3, 4], "f64", x_kind)], "accum")
                b.functional(name, f"i32{tag}", fn, [b.t([3, 4], "i32"), b.t([3, 4], "i32")])
                if name != "gelu_backward":
                    b.functional(name, "f32-broadcast", fn,
                                 [b.t([3, 1], "f32"), b.t([4], "f32", x_kind)], "accum")
            for dtype in ["f32", "bf16"]:
                b.out(name, f"{dtype}{tag}", grad_input(overload.grad_input),
                      [b.t([3, 4], dtype), b.t([3, 4], dtype, x_kind)], "accum",
                      functional=overload, **kwargs)


def softmax_output(b, shape, dtype, dim, log):
    """An Arg holding a real (log_)softmax output: of seeded values, computed in f64."""
    x = torch.randn(shape, generator=b.gen, dtype=torch.float64) * 3
    y = torch.log_softmax(x, dim) if log else torch.softmax(x, dim)
    return Arg(y.to(DTYPES[dtype]))


def softmax_gradient_cases(b):
    """_softmax_backward_data and _log_softmax_backward_data, with input_dtype the gradient's
    dtype (as autograd passes it)."""
    for op, out_kwarg in [("_softmax_backward_data", "grad_input"),
                          ("_log_softmax_backward_data", "out")]:
        log = op.startswith("_log")
        overload = getattr(aten, op)

        def fn(g, y, dim, o=overload):
            return o(g, y, dim, g.dtype)

        def out_fn(g, y, dim, out, o=overload, k=out_kwarg):
            return o.out(g, y, dim, g.dtype, **{k: out})

        for dtype in FLOATS:
            b.functional(op, dtype, fn, [b.t([3, 5], dtype), softmax_output(b, [3, 5], dtype, 1,
                                                                            log), 1], "accum")
        for label, shape, dim, layout in [("f32-dim0-views", [4, 3], 0, "transposed"),
                                          ("f32-3d", [2, 3, 4], -1, "stepped"),
                                          ("f32-0d", [], 0, "contiguous"),
                                          ("f32-empty", [0, 3], 1, "contiguous")]:
            b.functional(op, label, fn, [b.t(shape, "f32", layout=layout),
                                         softmax_output(b, shape, "f32", dim, log), dim],
                         "accum")
        b.functional(op, "f32-special", fn, [b.t([3, 5], "f32", "special"),
                                             softmax_output(b, [3, 5], "f32", 1, log), 1],
                     "accum")
        for dtype in ["f32", "f64"]:
            b.out(op, dtype, out_fn, [b.t([3, 5], dtype), softmax_output(b, [3, 5], dtype, 1,
                                                                         log), 1],
                  "accum", functional=fn)


def targets(b, rows, classes, ignore=True):
    """An i64 Arg of class indices in [0, classes), [rows] (0-d where rows is None); with
    `ignore`, every third row (from the second) is -100, the default ignore_index."""
    n = 1 if rows is None else rows
    t = torch.randint(0, classes, (n,), generator=b.gen)
    if ignore:
        t[1::3] = -100
    return Arg(t[0].clone() if rows is None else t)


def total_weight(log_probs, target, weight, reduction):
    """An Arg of PyTorch's total_weight of nll_loss_forward (f16: computed in f32)."""
    def up(a):
        return None if a is None else a.base.float() if a.dtype == torch.float16 else a.base
    _, total = aten.nll_loss_forward(up(log_probs), target.base, up(weight), reduction, -100)
    return Arg(total.to(log_probs.dtype))


def nll_forward_out(log_probs, target, weight, reduction, ignore_index, output, total):
    """aten::nll_loss_forward.output: two out= tensors, returned as a tuple."""
    return aten.nll_loss_forward.output(log_probs, target, weight, reduction, ignore_index,
                                        output=output, total_weight=total)


def loss_cases(b):
    mse_loss_cases(b)
    nll_loss_cases(b)


def mse_loss_cases(b):
    """mse_loss and its gradient (reductions: 0 none, 1 mean, 2 sum)."""
    for dtype in FLOATS:
        for reduction in [0, 1, 2]:
            b.functional("mse_loss", f"{dtype}-{reduction}", aten.mse_loss,
                         [b.t([3, 4], dtype), b.t([3, 4], dtype), reduction], "accum")
            grad = b.t([3, 4] if reduction == 0 else [], dtype)
            b.functional("mse_loss_backward", f"{dtype}-{reduction}", aten.mse_loss_backward,
                         [grad, b.t([3, 4], dtype), b.t([3, 4], dtype), reduction], "accum")
    for label, args in [("f32-broadcast-views", [b.t([4, 3], "f32", layout="transposed"),
                                                 b.t([3], "f32", layout="stepped"), 0]),
                        ("f32-special", [b.t([3, 4], "f32", "special"), b.t([3, 4], "f32"), 2]),
                        ("f32-0d", [b.t([], "f32"), b.t([], "f32"), 1]),
                        ("f32-empty-mean", [b.t([0, 3], "f32"), b.t([0, 3], "f32"), 1]),
                        ("i32", [b.t([3, 4], "i32"), b.t([3, 4], "i32"), 1])]:
        b.functional("mse_loss", label, aten.mse_loss, args, "accum")
    b.functional("mse_loss_backward", "f32-broadcast", aten.mse_loss_backward,
                 [b.t([3, 4], "f32"), b.t([3, 4], "f32", layout="transposed"), b.t([4], "f32"),
                  0], "accum")
    b.functional("mse_loss_backward", "f32-empty-mean", aten.mse_loss_backward,
                 [b.t([], "f32"), b.t([0, 3], "f32"), b.t([0, 3], "f32"), 1], "accum")
    for reduction in [0, 1]:
        b.out("mse_loss", f"f32-{reduction}", aten.mse_loss.out,
              [b.t([3, 4], "f32"), b.t([3, 4], "f32"), reduction], "accum",
              functional=aten.mse_loss)
        b.out("mse_loss_backward", f"f32-{reduction}",
              grad_input(aten.mse_loss_backward.grad_input),
              [b.t([3, 4] if reduction == 0 else [], "f32"), b.t([3, 4], "f32"),
               b.t([3, 4], "f32"), reduction], "accum", functional=aten.mse_loss_backward)


def nll_loss_cases(b):
    """nll_loss_forward -> (output, total_weight) and nll_loss_backward: rows of -100 are
    ignored; weights per class."""
    for dtype in FLOATS:
        for reduction in [0, 1, 2]:
            for weighted in [False, True]:
                label = f"{dtype}-{reduction}" + ("-weight" if weighted else "")
                log_probs = softmax_output(b, [5, 4], dtype, 1, log=True)
                target = targets(b, 5, 4)
                weight = b.t([4], dtype, "positive") if weighted else None
                b.functional("nll_loss_forward", label, aten.nll_loss_forward,
                             [log_probs, target, weight, reduction, -100], "accum")
                b.functional("nll_loss_backward", label, aten.nll_loss_backward,
                             [b.t([5] if reduction == 0 else [], dtype), log_probs, target,
                              weight, reduction, -100,
                              total_weight(log_probs, target, weight, reduction)], "accum")
    for label, args in [
            ("f32-1d", [b.t([5], "f32"), targets(b, None, 5, False), None, 2, -100]),
            # total_weight is the row's weight here, though 0 for 2-D rows (PyTorch 1.13).
            ("f32-1d-none", [b.t([5], "f32"), targets(b, None, 5, False),
                             b.t([5], "f32", "positive"), 0, -100]),
            ("f32-views", [b.t([4, 3], "f32", layout="transposed"), targets(b, 4, 3),
                           b.t([3], "f32", "positive", "stepped"), 1, -100]),
            ("f32-all-ignored", [b.t([3, 4], "f32"), Arg(torch.full((3,), -100)), None, 1,
                                 -100]),
            ("f32-ignore-class", [b.t([6, 4], "f32", "special"),
                                  Arg(torch.tensor([1, 0, 3, 1, 2, 1])), None, 2, 1]),
            ("f32-empty", [b.t([0, 4], "f32"), Arg(torch.zeros(0, dtype=torch.int64)), None,
                           1, -100]),
            ("f32-out-of-range", [b.t([3, 4], "f32"), Arg(torch.tensor([0, 4, 1])), None, 1,
                                  -100]),
            ("f32-i32-target", [b.t([3, 4], "f32"), Arg(torch.tensor([0, 2, 1],
                                                                     dtype=torch.int32)),
                                None, 1, -100])]:
        b.functional("nll_loss_forward", label, aten.nll_loss_forward, args, "accum")
    b.functional("nll_loss_forward", "f32-F.nll_loss", F.nll_loss,
                 [softmax_output(b, [4, 3], "f32", 1, log=True), targets(b, 4, 3)], "accum")
    b.functional("nll_loss_forward", "f32-F.cross_entropy",
                 lambda x, t, w: F.cross_entropy(x, t, w, reduction="sum"),
                 [b.t([4, 3], "f32"), targets(b, 4, 3), b.t([3], "f32", "positive")], "accum")
    for dtype in ["f32", "bf16"]:
        for reduction, layout in [(1, "contiguous"), (0, "empty"), (2, "empty")]:
            meta = ([5] if reduction == 0 else [], DTYPES[dtype])
            b.add("nll_loss_forward", f"{dtype}-{reduction}-out-{layout}", nll_forward_out,
                  b.t([5, 4], dtype), targets(b, 5, 4), b.t([4], dtype, "positive"), reduction,
                  -100, out_arg(b.gen, meta, layout), out_arg(b.gen, ([], DTYPES[dtype]), layout),
                  form="out", written=(5, 6), tol="accum")
    for reduction in [1, 0]:
        log_probs = softmax_output(b, [5, 4], "f32", 1, log=True)
        target, weight = targets(b, 5, 4), b.t([4], "f32", "positive")
        b.out("nll_loss_backward", f"f32-{reduction}",
              grad_input(aten.nll_loss_backward.grad_input),
              [b.t([5] if reduction == 0 else [], "f32"), log_probs, target, weight, reduction,
               -100, total_weight(log_probs, target, weight, reduction)], "accum",
              functional=aten.nll_loss_backward)


def optimizer_pointwise_cases(b):
    """addcmul, addcdiv (functional, in-place, out=) and lerp with a Python weight."""
    for op, fn in [("addcmul", torch.addcmul), ("addcdiv", torch.addcdiv)]:
        divisor = "nonzero" if op == "addcdiv" else "normal"
        method = getattr(torch.Tensor, op + "_")
        for dtype in FLOATS + ["i32", "i64", "bool"]:  # integers: addcdiv refused by both
            # f16/bf16 round each step on the devices, PyTorch once from f32.
            tol = "accum" if dtype in ("f16", "bf16") else "math"
            b.functional(op, dtype, fn, [b.t([3, 4], dtype), b.t([3, 4], dtype),
                                         b.t([3, 4], dtype, divisor)], tol)
        for label, call, args in [
                ("f32-value", lambda a, x, y, f=fn: f(a, x, y, value=-0.5),
                 [b.t([3, 4], "f32"), b.t([3, 4], "f32"), b.t([3, 4], "f32", divisor)]),
                ("i32-value", lambda a, x, y, f=fn: f(a, x, y, value=3),
                 [b.t([3, 4], "i32"), b.t([3, 4], "i32"), b.t([3, 4], "i32", divisor)]),
                ("f32-broadcast-views", lambda a, x, y, f=fn: f(a, x, y, value=2),
                 [b.t([4], "f32"), b.t([3, 4], "f32", layout="transposed"),
                  b.t([3, 1], "f32", divisor, "stepped")]),
                ("f64-special", lambda a, x, y, f=fn: f(a, x, y, value=0.25),
                 [b.t([3, 4], "f64", "special"), b.t([3, 4], "f64", "special"),
                  b.t([3, 4], "f64", "special")]),
                ("f32-0d", fn, [b.t([], "f32"), b.t([], "f32"), b.t([5], "f32", divisor)]),
                ("f32-empty", fn, [b.t([0, 4], "f32"), b.t([4], "f32"), b.t([0, 1], "f32")])]:
            b.functional(op, label, call, args, "math")
        b.out(op, "f32", fn, [b.t([3, 4], "f32"), b.t([3, 4], "f32"),
                              b.t([3, 4], "f32", divisor)], "math", value=0.5)
        b.out(op, "f64-broadcast", fn, [b.t([3, 1], "f64"), b.t([1, 4], "f64"),
                                        b.t([4], "f64", divisor)], "math")
        b.in_place(op, "f32-inplace", lambda a, x, y, m=method: m(a, x, y, value=-2),
                   [b.t([3, 4], "f32"), b.t([3, 4], "f32"), b.t([3, 4], "f32", divisor)], "math")
        b.in_place(op, "f32-inplace-views", method,
                   [b.t([4, 3], "f32", layout="transposed"), b.t([3], "f32"),
                    b.t([4, 1], "f32", divisor)], "math")
        b.in_place(op, "bf16-inplace", method,
                   [b.t([3, 4], "bf16"), b.t([3, 4], "bf16"), b.t([3, 4], "bf16", divisor)],
                   "accum")
    op = "lerp.Scalar"
    for dtype in FLOATS:
        for weight in [0.3, 0.75]:
            b.functional(op, f"{dtype}-{weight}", torch.lerp,
                         [b.t([3, 4], dtype), b.t([3, 4], dtype), weight], "math")
    for label, args in [("f32-broadcast-views", [b.t([4, 3], "f32", layout="transposed"),
                                                 b.t([3], "f32", layout="stepped"), 2.0]),
                        ("f32-special", [b.t([3, 4], "f32", "special"),
                                         b.t([3, 4], "f32", "special"), 0.25]),
                        ("f32-0d", [b.t([], "f32"), b.t([], "f32"), 1.0]),
                        ("f32-empty", [b.t([0, 3], "f32"), b.t([3], "f32"), 0.5]),
                        ("f32-f64", [b.t([3], "f32"), b.t([3], "f64"), 0.5]),
                        ("i32", [b.t([3], "i32"), b.t([3], "i32"), 0.5])]:
        b.functional(op, label, torch.lerp, args, "math")
    b.out(op, "f32", torch.lerp, [b.t([3, 4], "f32"), b.t([3, 4], "f32"), 0.4], "math")
    b.out(op, "bf16-0.9", torch.lerp, [b.t([3, 4], "bf16"), b.t([3, 4], "bf16"), 0.9], "math")
    b.in_place(op, "f32-inplace", torch.Tensor.lerp_,
               [b.t([3, 4], "f32"), b.t([3, 4], "f32"), 0.1], "math")
    b.in_place(op, "f64-inplace-views", torch.Tensor.lerp_,
               [b.t([4, 3], "f64", layout="stepped"), b.t([3], "f64"), 0.6], "math")
