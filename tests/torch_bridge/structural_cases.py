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
