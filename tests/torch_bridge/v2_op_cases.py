"""The cases of test_ops.py for op set v2 (issue 28): masked_fill, tril, triu, var, std,
logsumexp, cumsum, cumprod, max/min over a dim, convolution, pooling and batch norm, through the aten overloads PyTorch's Python API calls (functional, in place and
out=). Each *_cases(b) adds its cases to a Builder (op_cases.py) in a fixed order: the
seeded inputs depend on it.
"""

import torch

from indexing_op_cases import advanced_indexing_cases
from op_cases import ALL, DTYPES, FLOATS, Arg, out_arg
from random_op_cases import hardtanh_cases, random_cases
from scatter_op_cases import scatter_cases
from sort_op_cases import sort_cases

aten = torch.ops.aten


def op_set_v2_cases(b):
    masked_fill_cases(b)
    triangle_cases(b)
    statistics_cases(b)
    scan_and_selection_cases(b)
    convolution_cases(b)
    pooling_cases(b)
    batch_norm_cases(b)
    group_norm_cases(b)
    random_cases(b)
    hardtanh_cases(b)
    sort_cases(b)
    scatter_cases(b)
    advanced_indexing_cases(b)


def mask(b, shape):
    """A bool Arg of seeded values."""
    return Arg(torch.rand(shape, generator=b.gen) < 0.5)


def masked_fill_cases(b):
    """masked_fill with a Python number and with a 0-d tensor (PyTorch's Tensor overload)."""
    for dtype in ALL:
        value = True if dtype == "bool" else 2.5 if dtype in FLOATS else 7
        b.functional("masked_fill.Scalar", dtype, torch.masked_fill,
                     [b.t([3, 4], dtype, "special"), mask(b, [3, 4]), value])
        b.functional("masked_fill.Tensor", dtype, torch.masked_fill,
                     [b.t([3, 4], dtype, "special"), mask(b, [4]),
                      Arg(torch.tensor(value).to(DTYPES[dtype]))])
    for label, args in [("f32-self-broadcast", [b.t([4], "f32"), mask(b, [2, 4]), -1.5]),
                        ("f32-views", [b.t([4, 3], "f32", layout="transposed"), mask(b, [3]),
                                       float("nan")]),
                        ("i32-float-value", [b.t([5], "i32"), mask(b, [5]), 2.5]),
                        ("i8-overflow", [b.t([5], "i8"), mask(b, [5]), 300]),
                        ("f32-0d", [b.t([], "f32"), mask(b, []), 3.0]),
                        ("f32-empty", [b.t([0, 3], "f32"), mask(b, [3]), 3.0])]:
        b.functional("masked_fill.Scalar", label, torch.masked_fill, args)
    b.functional("masked_fill.Scalar", "f32-u8-mask", torch.masked_fill,
                 [b.t([5], "f32"), Arg(torch.ones(5, dtype=torch.uint8)), 1.0],
                 bridge_raises="masked-fill-mask-dtype")
    b.functional("masked_fill.Tensor", "f32-f64-value", torch.masked_fill,
                 [b.t([3, 4], "f32"), mask(b, [3, 4]), Arg(torch.tensor(0.25, dtype=torch.float64))])
    b.functional("masked_fill.Tensor", "f32-1d-value", torch.masked_fill,
                 [b.t([3, 4], "f32"), mask(b, [3, 4]), Arg(torch.tensor([0.25]))])
    b.in_place("masked_fill.Scalar", "f32-inplace", torch.Tensor.masked_fill_,
               [b.t([3, 4], "f32"), mask(b, [3, 4]), -2.0])
    b.in_place("masked_fill.Tensor", "i64-inplace-views", torch.Tensor.masked_fill_,
               [b.t([4, 3], "i64", layout="transposed"), mask(b, [3]), Arg(torch.tensor(9))])
    b.out("masked_fill.Scalar", "f32", aten.masked_fill.Scalar_out,
          [b.t([3, 4], "f32"), mask(b, [3, 4]), 1.5], functional=aten.masked_fill.Scalar)
    b.out("masked_fill.Tensor", "f32", aten.masked_fill.Tensor_out,
          [b.t([3, 4], "f32"), mask(b, [3, 4]), Arg(torch.tensor(1.5))],
          functional=aten.masked_fill.Tensor)


def triangle_cases(b):
    for op, fn, method in [("tril", torch.tril, torch.Tensor.tril_),
                           ("triu", torch.triu, torch.Tensor.triu_)]:
        for dtype in ALL:
            b.functional(op, dtype, fn, [b.t([4, 5], dtype, "special")])
        for label, args in [("f32-diagonal-2", [b.t([4, 5], "f32"), 2]),
                            ("f32-diagonal-minus-1-batch", [b.t([2, 3, 4], "f32"), -1]),
                            ("f32-views", [b.t([5, 4], "f32", layout="transposed"), 0]),
                            ("f32-empty", [b.t([0, 3], "f32"), 0]),
                            ("f32-1d", [b.t([5], "f32"), 0])]:
            b.functional(op, label, fn, args)
        b.in_place(op, "f32-inplace", method, [b.t([4, 4], "f32"), 1])
        b.out(op, "f32", fn, [b.t([3, 5], "f32"), -1])


def statistics_cases(b):
    """var and std (torch.var's unbiased and correction forms reach var.correction) and
    logsumexp."""
    for op, fn in [("var.correction", torch.var), ("std.correction", torch.std)]:
        for dtype in FLOATS:
            b.functional(op, dtype, fn, [b.t([4, 6], dtype)], "accum")
        for label, call, args in [
                ("f32-dim1-unbiased-false", lambda x, f=fn: f(x, 1, unbiased=False),
                 [b.t([4, 6], "f32")]),
                ("f32-correction-2-keepdim", lambda x, f=fn: f(x, (0, 2), correction=2,
                                                                keepdim=True),
                 [b.t([3, 4, 5], "f32", layout="transposed")]),
                ("f32-one-element", fn, [b.t([1], "f32")]),
                ("f64-empty", lambda x, f=fn: f(x, 0), [b.t([0, 3], "f64")]),
                ("i32", fn, [b.t([5], "i32")])]:
            b.functional(op, label, call, args, "accum")
        b.out(op, "f32", lambda x, out=None, f=fn: f(x, 1, correction=0, out=out),
              [b.t([4, 6], "f32")], "accum")
    op = "logsumexp"
    for dtype in ["f32", "f64", "bf16", "i32", "bool"]:  # 1.13 has no f16 kernel
        b.functional(op, dtype, torch.logsumexp, [b.t([4, 6], dtype, "special"), 1], "accum")
    for label, args in [("f32-dims-keepdim", [b.t([2, 3, 4], "f32"), (0, 2), True]),
                        ("f32-empty-rows", [b.t([0, 3], "f32"), 0]),
                        ("f32-0d", [b.t([], "f32"), 0])]:
        b.functional(op, label, torch.logsumexp, args, "accum")
    b.out(op, "f32", torch.logsumexp, [b.t([4, 6], "f32"), 1], "accum")


def scan_and_selection_cases(b):
    """cumsum and cumprod (functional, in place, out=) and max/min over a dim with indices."""
    for op, fn, method in [("cumsum", torch.cumsum, torch.Tensor.cumsum_),
                           ("cumprod", torch.cumprod, torch.Tensor.cumprod_)]:
        kind = "small" if op == "cumprod" else "special"
        for dtype in ALL:
            b.functional(op, dtype, fn, [b.t([3, 5], dtype, kind), 1], "accum")
        for label, call, args in [
                ("f32-dim0-views", fn, [b.t([5, 3], "f32", layout="transposed"), 0]),
                ("i32-dtype-f64", lambda x, d, f=fn: f(x, d, dtype=torch.float64),
                 [b.t([3, 4], "i32"), 1]),
                ("f32-0d", fn, [b.t([], "f32"), 0]),
                ("f32-empty", fn, [b.t([0, 3], "f32"), 1]),
                ("i64-dtype-bool", lambda x, d, f=fn: f(x, d, dtype=torch.bool),
                 [b.t([4], "i64"), 0])]:
            b.functional(op, label, call, args, "accum")
        b.in_place(op, "f32-inplace", lambda x, d, m=method: m(x, d), [b.t([3, 4], "f32", kind), 1],
                   "accum")
        b.out(op, "f32", fn, [b.t([3, 4], "f32", kind), 0], "accum")
    for op, fn, aten_out in [
            ("max.dim", torch.max, lambda x, d, o0, o1: aten.max.dim_max(x, d, False, max=o0,
                                                                          max_values=o1)),
            ("min.dim", torch.min, lambda x, d, o0, o1: aten.min.dim_min(x, d, False, min=o0,
                                                                          min_indices=o1))]:
        for dtype in ALL:
            b.functional(op, dtype, fn, [b.t([4, 6], dtype, "special"), 1])
        for label, args in [("f32-keepdim-views", [b.t([6, 4], "f32", layout="transposed"), 0,
                                                   True]),
                            ("f32-0d", [b.t([], "f32"), 0]),
                            ("f32-empty-dim", [b.t([3, 0], "f32"), 1])]:
            b.functional(op, label, fn, args)
        b.add(op, "f32-out", lambda x, d, o0, o1, f=aten_out: tuple(f(x, d, o0, o1)),
              b.t([4, 6], "f32"), 1,
              *[out_arg(b.gen, meta, "contiguous")
                for meta in [([4], torch.float32), ([4], torch.int64)]],
              form="out", written=(2, 3))


def convolution_cases(b):
    """aten::convolution (what F.conv1d, F.conv2d and F.conv_transpose2d reach) and
    aten::convolution_backward (what autograd calls), functional and out=."""
    def conv(dtype, x, w, bias, *params, layout="contiguous"):
        return [b.t(x, dtype, layout=layout), b.t(w, dtype),
                b.t(bias, dtype) if bias else None, *params]
    for dtype in ["f32", "f64", "bf16", "i64"]:
        b.functional("convolution", dtype, torch.convolution,
                     conv(dtype, [2, 3, 6, 7], [4, 3, 3, 3], [4], [1], [1], [1], False, [0], 1),
                     "accum")
    for label, args in [
            ("f32-stride2-groups2", conv("f32", [1, 4, 8, 8], [6, 2, 3, 3], None, [2], [1], [1],
                                         False, [0], 2)),
            ("f32-dilated-asymmetric", conv("f32", [1, 2, 9, 7], [3, 2, 3, 2], [3], [2, 1],
                                            [2, 0], [2, 3], False, [0], 1)),
            ("f32-conv1d", conv("f32", [2, 3, 11], [5, 3, 4], [5], [2], [1], [2], False, [0], 1)),
            ("f32-transposed", conv("f32", [2, 4, 5, 5], [4, 3, 3, 3], [3], [2], [1], [1], True,
                                    [1], 1)),
            ("f32-views", conv("f32", [2, 3, 6, 7], [4, 3, 3, 3], [4], [1], [0], [1], False,
                               [0], 1, layout="transposed")),
            ("f32-empty-batch", conv("f32", [0, 3, 5, 5], [2, 3, 3, 3], None, [1], [1], [1],
                                     False, [0], 1))]:
        b.functional("convolution", label, torch.convolution, args, "accum")
    b.functional("convolution", "f32-transposed-output-padding-dilation", torch.convolution,
                 conv("f32", [1, 2, 5, 5], [2, 2, 3, 3], None, [1], [0], [2], True, [1], 1),
                 bridge_raises="convolution-transposed-output-padding")
    b.out("convolution", "f32", aten.convolution.out,
          conv("f32", [1, 3, 5, 5], [2, 3, 3, 3], [2], [1], [1], [1], False, [0], 1), "accum")
    # convolution_backward: every gradient, plain and transposed, then the out= form.
    backward = aten.convolution_backward
    for label, x, w, grad, params in [
            ("f32", [2, 3, 6, 7], [4, 3, 3, 3], [2, 4, 6, 7], ([1], [1], [1], False, [0], 1)),
            ("f64-groups2-stride2", [1, 4, 8, 8], [6, 2, 3, 3], [1, 6, 4, 4],
             ([2], [1], [1], False, [0], 2)),
            ("f32-transposed", [2, 4, 5, 5], [4, 3, 3, 3], [2, 3, 10, 10],
             ([2], [1], [1], True, [1], 1))]:
        dtype = label.split("-")[0]
        b.functional("convolution_backward", label, backward,
                     [b.t(grad, dtype), b.t(x, dtype), b.t(w, dtype), [grad[1]], *params,
                      [True, True, True]], "accum")
    b.functional("convolution_backward", "f32-input-gradient-only", backward,
                 [b.t([1, 2, 5, 5], "f32"), b.t([1, 3, 5, 5], "f32"), b.t([2, 3, 3, 3], "f32"),
                  None, [1], [1], [1], False, [0], 1, [True, False, False]], "accum")
    b.add("convolution_backward", "f32-out",
          lambda g, x, w, o0, o1, o2: tuple(aten.convolution_backward.out(
              g, x, w, [2], [1], [1], [1], False, [0], 1, [True, True, True],
              out0=o0, out1=o1, out2=o2)),
          b.t([1, 2, 5, 5], "f32"), b.t([1, 3, 5, 5], "f32"), b.t([2, 3, 3, 3], "f32"),
          *[out_arg(b.gen, meta, "contiguous")
            for meta in [([1, 3, 5, 5], torch.float32), ([2, 3, 3, 3], torch.float32),
                         ([2], torch.float32)]],
          form="out", written=(3, 4, 5), tol="accum")



def max_pool_backward(grad_output, self, grad_input=None):
    """max_pool2d_with_indices_backward (k3, s2, p1) with the indices of the forward on the
    same device; into grad_input (.grad_input) when given."""
    window = ([3, 3], [2, 2], [1, 1], [1, 1], False)
    indices = aten.max_pool2d_with_indices(self, *window)[1]
    if grad_input is None:
        return aten.max_pool2d_with_indices_backward(grad_output, self, *window, indices)
    return aten.max_pool2d_with_indices_backward.grad_input(grad_output, self, *window, indices,
                                                            grad_input=grad_input)


def pooling_cases(b):
    """max_pool2d_with_indices, avg_pool2d and _adaptive_avg_pool2d (what F.max_pool2d,
    F.avg_pool2d and F.adaptive_avg_pool2d reach) and their backward ops, functional and out=."""
    windows = [("f32", [2, 3, 8, 8], [2, 2], [2, 2], [0, 0], [1, 1], False),
               ("f64-k3-s2-p1-ceil", [1, 2, 9, 9], [3, 3], [2, 2], [1, 1], [1, 1], True),
               ("bf16-dilated", [1, 2, 9, 8], [3, 2], [1, 2], [1, 1], [1, 2], False),
               ("f32-unbatched", [3, 6, 5], [2, 2], [2, 2], [1, 1], [1, 1], True)]
    for label, shape, k, s, p, d, ceil in windows:
        x = b.t(shape, label.split("-")[0], "special")
        b.functional("max_pool2d_with_indices", label, aten.max_pool2d_with_indices,
                     [x, k, s, p, d, ceil])
        for include_pad, divisor in [(True, None), (False, None), (True, 3)]:
            b.functional("avg_pool2d", f"{label}-pad{int(include_pad)}-div{divisor}",
                         aten.avg_pool2d, [x, k, s, p, ceil, include_pad, divisor], "accum")
    b.add("max_pool2d_with_indices", "f32-out",
          lambda x, o0, o1: tuple(aten.max_pool2d_with_indices.out(
              x, [2, 2], [2, 2], [0, 0], [1, 1], False, out=o0, indices=o1)),
          b.t([1, 2, 4, 4], "f32"),
          *[out_arg(b.gen, meta, "contiguous")
            for meta in [([1, 2, 2, 2], torch.float32), ([1, 2, 2, 2], torch.int64)]],
          form="out", written=(1, 2))
    b.out("avg_pool2d", "f32", aten.avg_pool2d.out,
          [b.t([1, 2, 6, 6], "f32"), [3, 3], [2, 2], [1, 1], False, True, None], "accum")
    x, grad = b.t([1, 2, 7, 7], "f32"), b.t([1, 2, 4, 4], "f32")
    b.functional("max_pool2d_with_indices_backward", "f32", max_pool_backward, [grad, x],
                 "accum")
    b.add("max_pool2d_with_indices_backward", "f32-out", max_pool_backward, grad, x,
          out_arg(b.gen, ([1, 2, 7, 7], torch.float32), "contiguous"), form="out", written=2,
          tol="accum")
    avg_window = [[3, 3], [2, 2], [1, 1], True, False, None]
    b.functional("avg_pool2d_backward", "f32", aten.avg_pool2d_backward, [grad, x, *avg_window],
                 "accum")
    b.add("avg_pool2d_backward", "f32-out",
          lambda g, s, o: aten.avg_pool2d_backward.grad_input(g, s, *avg_window, grad_input=o),
          grad, x, out_arg(b.gen, ([1, 2, 7, 7], torch.float32), "contiguous"), form="out",
          written=2, tol="accum")
    for label, shape, size in [("f32", [2, 3, 7, 9], [3, 4]),
                               ("f64-upsampling", [1, 2, 4, 5], [9, 11])]:
        dtype = label.split("-")[0]
        b.functional("_adaptive_avg_pool2d", label, aten._adaptive_avg_pool2d,
                     [b.t(shape, dtype), size], "accum")
        b.functional("_adaptive_avg_pool2d_backward", label, aten._adaptive_avg_pool2d_backward,
                     [b.t(shape[:2] + size, dtype), b.t(shape, dtype)], "accum")
    b.out("_adaptive_avg_pool2d", "f32", aten._adaptive_avg_pool2d.out,
          [b.t([2, 3, 7, 9], "f32"), [3, 4]], "accum")
    b.out("_adaptive_avg_pool2d_backward", "f32", aten._adaptive_avg_pool2d_backward.out,
          [b.t([2, 3, 3, 4], "f32"), b.t([2, 3, 7, 9], "f32")], "accum")


def batch_norm_forward_and_stats(x, w, b, rm, rv, training):
    """native_batch_norm's outputs and the running statistics it updated in place."""
    out = aten.native_batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5)
    return (*out, rm, rv) if rm is not None else tuple(out)


def batch_norm_cases(b):
    """native_batch_norm (training, with the running statistics it writes compared too, and
    evaluation) and its backward, functional and out=."""
    for label, shape, training, affine in [("f32-train", [2, 3, 4, 5], True, True),
                                           ("f64-train-no-affine", [4, 3, 5], True, False),
                                           ("bf16-eval", [2, 3, 4, 5], False, True),
                                           ("f32-eval-3d-image", [2, 4, 2, 2, 3], False, True)]:
        dtype, c = label.split("-")[0], shape[1]
        params = [b.t([c], dtype), b.t([c], dtype)] if affine else [None, None]
        b.functional("native_batch_norm", label, batch_norm_forward_and_stats,
                     [b.t(shape, dtype), *params, b.t([c], dtype, "normal"),
                      b.t([c], dtype, "positive"), training], "accum")
    x, w, rm, rv = b.t([2, 3, 4, 5], "f32"), b.t([3], "f32"), b.t([3], "f32"), b.t([3], "f32",
                                                                                   "positive")
    b.add("native_batch_norm", "f32-out", batch_norm_out, x, w,
          *[out_arg(b.gen, meta, "contiguous")
            for meta in [([2, 3, 4, 5], torch.float32), ([3], torch.float32),
                         ([3], torch.float32)]],
          form="out", written=(2, 3, 4), tol="accum")
    for train in [True, False]:
        b.functional("native_batch_norm_backward", f"f32-{'train' if train else 'eval'}",
                     batch_norm_backward, [b.t([2, 3, 4, 5], "f32"), x, w, rm, rv, train],
                     "accum")
    b.add("native_batch_norm_backward", "f32-out",
          lambda g, x, w, rm, rv, o0, o1, o2: tuple(aten.native_batch_norm_backward.out(
              g, x, w, rm, rv, None, None, False, 1e-5, [True, True, True], out0=o0, out1=o1,
              out2=o2)),
          b.t([2, 3, 4, 5], "f32"), x, w, rm, rv,
          *[out_arg(b.gen, meta, "contiguous")
            for meta in [([2, 3, 4, 5], torch.float32), ([3], torch.float32),
                         ([3], torch.float32)]],
          form="out", written=(5, 6, 7), tol="accum")


def batch_norm_out(x, w, out, save_mean, save_invstd):
    """aten::native_batch_norm.out in training without bias or running statistics. PyTorch
    1.13's CPU has no kernel for it (CUDA only): the expected values are its functional
    form's, copied into the outs."""
    outs = (out, save_mean, save_invstd)
    if x.device.type == "cpu":
        for o, r in zip(outs, aten.native_batch_norm(x, w, None, None, None, True, 0.1, 1e-5)):
            o.resize_(r.shape).copy_(r)
        return outs
    return tuple(aten.native_batch_norm.out(x, w, None, None, None, True, 0.1, 1e-5, out=out,
                                            save_mean=save_mean, save_invstd=save_invstd))


def batch_norm_backward(g, x, w, rm, rv, train):
    """native_batch_norm_backward with the saved statistics of a forward on copies of the
    running ones (training) or the running statistics (evaluation)."""
    _, mean, invstd = aten.native_batch_norm(x, w, None, rm.clone(), rv.clone(), train, 0.1, 1e-5)
    saved = (mean, invstd) if train else (None, None)
    return tuple(aten.native_batch_norm_backward(g, x, w, rm, rv, *saved, train, 1e-5,
                                                 [True, True, True]))


def group_norm_cases(b):
    """native_group_norm (what nn.GroupNorm reaches) and its backward, functional and out=."""
    for label, shape, group, affine in [("f32", [2, 4, 3, 5], 2, True),
                                        ("f64-no-affine", [3, 6, 7], 3, False),
                                        ("bf16", [2, 6, 2, 2], 6, True)]:
        dtype, n, c = label.split("-")[0], shape[0], shape[1]
        hxw = 1
        for d in shape[2:]:
            hxw *= d
        params = [b.t([c], dtype), b.t([c], dtype)] if affine else [None, None]
        b.functional("native_group_norm", label, aten.native_group_norm,
                     [b.t(shape, dtype), *params, n, c, hxw, group, 1e-5], "accum")
    x, w = b.t([2, 4, 3, 5], "f32"), b.t([4], "f32")
    b.functional("native_group_norm_backward", "f32", group_norm_backward,
                 [b.t([2, 4, 3, 5], "f32"), x, w], "accum")
    b.add("native_group_norm", "f32-out",
          lambda x, w, o0, o1, o2: tuple(aten.native_group_norm.out(
              x, w, None, 2, 4, 15, 2, 1e-5, out0=o0, out1=o1, out2=o2)),
          x, w, *[out_arg(b.gen, meta, "contiguous")
                  for meta in [([2, 4, 3, 5], torch.float32), ([2, 2], torch.float32),
                               ([2, 2], torch.float32)]],
          form="out", written=(2, 3, 4), tol="accum")
    b.add("native_group_norm_backward", "f32-out", group_norm_backward,
          b.t([2, 4, 3, 5], "f32"), x, w,
          *[out_arg(b.gen, meta, "contiguous")
            for meta in [([2, 4, 3, 5], torch.float32), ([4], torch.float32),
                         ([4], torch.float32)]],
          form="out", written=(3, 4, 5), tol="accum")


def group_norm_backward(g, x, w, out0=None, out1=None, out2=None):
    """native_group_norm_backward (2 groups of [2, 4, 3, 5]) with the statistics of the
    forward on the same device; into the outs (.out) when given."""
    _, mean, rstd = aten.native_group_norm(x, w, None, 2, 4, 15, 2, 1e-5)
    args = (g, x, mean, rstd, w, 2, 4, 15, 2, [True, True, True])
    if out0 is None:
        return tuple(aten.native_group_norm_backward(*args))
    return tuple(aten.native_group_norm_backward.out(*args, out0=out0, out1=out1, out2=out2))
