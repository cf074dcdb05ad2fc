"""The cases of test_ops.py for the training op set (docs/training.md): the activation and
softmax gradients, the losses and their gradients, baddbmm, the optimizers' pointwise
ops, index_add and embedding_dense_backward, through the aten overloads autograd and torch.optim call. Each *_cases(b) adds its
cases to a Builder (op_cases.py), in a fixed order: the seeded inputs depend on it.
"""

import torch
import torch.nn.functional as F

from op_cases import ALL, DTYPES, FLOATS, NAN, Arg, const, out_arg, tensor, with_out  # noqa: F401

aten = torch.ops.aten


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
    baddbmm_cases(b)
    layer_norm_cases(b)
    indexed_write_cases(b)


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


def baddbmm_cases(b):
    """baddbmm (the attention scores of a masked MultiheadAttention): functional, out= and
    in-place, with coefficients, a broadcast mask and beta = 0 ignoring NaN."""
    for dtype in ["f32", "f64", "bf16", "i32"]:
        b.functional("baddbmm", dtype, torch.baddbmm,
                     [b.t([4, 5], dtype, "small"), b.t([2, 3, 4], dtype, "small"),
                      b.t([2, 4, 5], dtype, "small")], "accum")
    b.functional("baddbmm", "f32-coefficients",
                 lambda c, x, y: torch.baddbmm(c, x, y, beta=0.5, alpha=-2),
                 [b.t([2, 3, 1], "f32"), b.t([2, 3, 4], "f32", layout="transposed"),
                  b.t([2, 4, 2], "f32")], "accum")
    b.functional("baddbmm", "f32-beta-0-nan", lambda c, x, y: torch.baddbmm(c, x, y, beta=0),
                 [const([NAN, 1.0], "f32"), b.t([2, 3, 4], "f32"), b.t([2, 4, 2], "f32")],
                 "accum")
    b.out("baddbmm", "f32", torch.baddbmm, [b.t([2, 3, 2], "f32"), b.t([2, 3, 4], "f32"),
                                            b.t([2, 4, 2], "f32")], "accum")
    b.in_place("baddbmm", "f32-inplace", torch.Tensor.baddbmm_,
               [b.t([2, 3, 2], "f32"), b.t([2, 3, 4], "f32"), b.t([2, 4, 2], "f32")], "accum")


def layer_norm_stats(x, norm, weight, bias):
    """Args of PyTorch's own mean and rstd of native_layer_norm (as autograd saves them)."""
    def cpu(a):
        return None if a is None else a.on("cpu")
    _, mean, rstd = aten.native_layer_norm(cpu(x), norm, cpu(weight), cpu(bias), 1e-5)
    return Arg(mean), Arg(rstd)


def layer_norm_out(x, norm, weight, bias, eps, out0, out1, out2):
    """aten::native_layer_norm.out: three out= tensors, returned as a tuple."""
    return aten.native_layer_norm.out(x, norm, weight, bias, eps, out0=out0, out1=out1,
                                      out2=out2)


def layer_norm_backward_out(grad, x, norm, mean, rstd, weight, bias, mask, out0, out1, out2):
    """aten::native_layer_norm_backward.out: three out= tensors, returned as a tuple."""
    return aten.native_layer_norm_backward.out(grad, x, norm, mean, rstd, weight, bias, mask,
                                               out0=out0, out1=out1, out2=out2)


def layer_norm_cases(b):
    """native_layer_norm (what autograd records for F.layer_norm) and its gradient, all three
    gradients asked for (test_training.py checks the masks' None gradients)."""
    for dtype, shape, norm, layout in [("f32", [3, 4], [4], "contiguous"),
                                       ("f64", [2, 3, 4], [3, 4], "transposed"),
                                       ("bf16", [5], [5], "contiguous")]:
        x, w, c = b.t(shape, dtype, layout=layout), b.t(norm, dtype), b.t(norm, dtype)
        b.functional("native_layer_norm", dtype, aten.native_layer_norm, [x, norm, w, c, 1e-5],
                     "accum")
        mean, rstd = layer_norm_stats(x, norm, w, c)
        b.functional("native_layer_norm_backward", dtype, aten.native_layer_norm_backward,
                     [b.t(shape, dtype), x, norm, mean, rstd, w, c, [True, True, True]], "accum")
    x, w, c = b.t([4, 6], "f32"), b.t([6], "f32"), b.t([6], "f32")
    stats = [([4, 6], torch.float32), ([4, 1], torch.float32), ([4, 1], torch.float32)]
    b.add("native_layer_norm", "f32-out", layer_norm_out, x, [6], w, c, 1e-5,
          *[out_arg(b.gen, meta, "empty") for meta in stats], form="out", written=(5, 6, 7),
          tol="accum")
    mean, rstd = layer_norm_stats(x, [6], w, c)
    grads = [([4, 6], torch.float32), ([6], torch.float32), ([6], torch.float32)]
    b.add("native_layer_norm_backward", "f32-out", layer_norm_backward_out, b.t([4, 6], "f32"), x,
          [6], mean, rstd, w, c, [True, True, True],
          *[out_arg(b.gen, meta, "contiguous") for meta in grads], form="out",
          written=(8, 9, 10), tol="accum")



def rows(b, count, size, dtype="i64"):
    """An index Arg of `count` values in [0, size): repeats whenever count > size."""
    return Arg(torch.randint(0, size, [count], generator=b.gen).to(DTYPES[dtype]))


def indexed_write_cases(b):
    """index_add (functional, out=, in place) and embedding_dense_backward, which autograd
    calls for embedding's weight."""
    op = "index_add"
    for dtype in ALL:
        alpha = 1 if dtype == "bool" else 2
        b.functional(op, dtype, lambda s, d, i, x, a=alpha: torch.index_add(s, d, i, x, alpha=a),
                     [b.t([4, 3], dtype, "special"), 0, rows(b, 6, 4), b.t([6, 3], dtype)],
                     "accum")
    for label, args in [
            ("f32-dim1-i32-views", [b.t([3, 4], "f32", layout="transposed"), 1,
                                    rows(b, 7, 4, "i32"), b.t([3, 7], "f32", layout="stepped")]),
            ("f32-0d", [b.t([], "f32"), 0, Arg(torch.tensor(0)), b.t([], "f32")]),
            ("f32-empty-index", [b.t([3, 4], "f32"), 0, rows(b, 0, 3), b.t([0, 4], "f32")]),
            ("f32-broadcast-source", [b.t([3, 4], "f32"), 0, rows(b, 5, 3), b.t([5, 1], "f32")]),
            ("f32-out-of-range", [b.t([3, 4], "f32"), 0, Arg(torch.tensor([0, 3])),
                                  b.t([2, 4], "f32")]),
            ("f32-source-f64", [b.t([3, 4], "f32"), 0, rows(b, 2, 3), b.t([2, 4], "f64")])]:
        b.functional(op, label, torch.index_add, args, "accum")
    b.out(op, "f32", torch.index_add, [b.t([5, 3], "f32"), 0, rows(b, 8, 5), b.t([8, 3], "f32")],
          "accum")
    b.in_place(op, "f32-inplace", lambda s, d, i, x: s.index_add_(d, i, x, alpha=-0.5),
               [b.t([5, 3], "f32"), 0, rows(b, 8, 5), b.t([8, 3], "f32")], "accum")
    b.in_place(op, "i64-inplace-views", torch.Tensor.index_add_,
               [b.t([3, 5], "i64", layout="transposed"), 1, rows(b, 9, 5), b.t([3, 9], "i64")])
    op, fn = "embedding_dense_backward", aten.embedding_dense_backward
    for dtype in FLOATS:
        b.functional(op, dtype, fn, [b.t([2, 5, 4], dtype), Arg(torch.randint(
            0, 6, [2, 5], generator=b.gen)), 6, -1, False], "accum")
    for label, padding, scale in [("f32-padding", 2, False), ("f32-scale", -1, True),
                                  ("f32-padding-scale", 0, True)]:
        b.functional(op, label, fn, [b.t([8, 3], "f32"), rows(b, 8, 4, "i32"), 4, padding,
                                     scale], "accum")
    b.out(op, "f32", fn, [b.t([6, 3], "f32"), rows(b, 6, 5), 5, -1, False], "accum")
