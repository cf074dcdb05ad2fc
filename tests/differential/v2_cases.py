"""The seeded cases of op set v2 (issue 28) for the differential test: masked_fill (Scalar and
Tensor values, broadcasting masks), tril and triu (diagonals on both sides and past the
matrix, batches, empty matrices), var and std with every kind of correction, logsumexp
(integral inputs give f32; infinities and NaN), cumsum and cumprod (the i64 rule, `dtype`,
wrap-around), max.dim and min.dim (NaN, ties, an empty dim), and convolution: the
composite and its backward in PyTorch's schemas, and the three primitives through
aten::convolution / aten::convolution_backward (strides, padding, dilation, groups, 1-D,
transposed, integers), and the pooling ops (max with NaN and ties, average with padding,
ceil_mode, count_include_pad and divisor_override, adaptive windows that overlap), and batch
norm in training and evaluation with its gradients.
cases.Generator inherits OpSetV2Cases and
runs its group, `op_set_v2`, after the training group, so these cases draw their values
after every earlier group's.

A u8 or floating mask is refused, where PyTorch 1.13 reads a u8 one with a deprecation
warning and a floating one as all false (`masked-fill-mask-dtype`). Left out on purpose
(docs/ops.md): logsumexp over dim=[] (PyTorch 1.13 fails with a broadcast error; Backplane reduces every
dim, as later PyTorch does); f16 convolution (PyTorch 1.13's CPU has no kernel for it)."""

import math

import torch

from harness import ALL, FLOATS, NONE, Arg, S, T, TensorArg
from training_cases import exact
from inputs import NAN, INF
from random_cases import RandomCases
from indexing_cases import IndexingCases
from scatter_cases import ScatterCases
from sort_cases import SortCases

# (self, mask) shapes of masked_fill: equal, the mask broadcast, self broadcast, 0-d, empty.
MASK_SHAPES = [([3, 4], [3, 4]), ([3, 4], [4]), ([4], [2, 4]), ([], []), ([0, 3], [3])]
# (shape, diagonal) of tril and triu.
TRIANGLES = [([3, 4], 0), ([4, 3], -1), ([2, 3, 4], 1), ([3, 3], 5), ([3, 3], -5), ([0, 3], 0)]


class OpSetV2Cases(RandomCases, SortCases, ScatterCases, IndexingCases):
    """The `op_set_v2` group of cases.Generator (which provides add, tensor, values, rng)."""

    def op_set_v2(self):
        self.masked_fills()
        self.triangles()
        self.variances()
        self.logsumexps()
        self.scans()
        self.extremes()
        self.convolutions()
        self.poolings()
        self.batch_norms()
        self.group_norms()
        self.random_ops()
        self.hardtanhs()
        self.sorts()
        self.scatters()
        self.indexings()

    def masked_fills(self):
        for dtype in ALL:
            values = [2.5, NAN, -INF] if dtype in FLOATS else [True] if dtype == "bool" else [7, -3]
            for (ss, ms), value in zip(MASK_SHAPES, values * 3):
                mask = self.tensor("bool", ms)
                self.add("masked_fill.Scalar", "v2", [("self", self.tensor(dtype, ss)),
                                                      ("mask", mask), ("value", S(value))])
                self.add("masked_fill.Tensor", "v2", [
                    ("self", self.tensor(dtype, ss)), ("mask", self.tensor("bool", ms)),
                    ("value", self.tensor(self.rng.choice([dtype, "f64", "i64"]), [], "normal"))])
        for dtype, value in [("i32", 2.5), ("i8", 300), ("u8", -1), ("bool", 5), ("f16", 1e6)]:
            self.add("masked_fill.Scalar", "v2", [("self", self.tensor(dtype, [4])),
                                                  ("mask", self.tensor("bool", [4])),
                                                  ("value", S(value))])
        self.add("masked_fill.Tensor", "v2", [("self", self.tensor("f32", [4])),
                                              ("mask", self.tensor("bool", [4])),
                                              ("value", self.tensor("f32", [1]))])
        for mask_dtype in [torch.uint8, torch.float32]:  # masked-fill-mask-dtype (docs/ops.md)
            mask = T(TensorArg(torch.tensor([1, 0, 1, 1], dtype=mask_dtype), [4], [1]))
            self.add("masked_fill.Scalar", "v2", [("self", self.tensor("f32", [4])),
                                                  ("mask", mask), ("value", S(1.5))])

    def triangles(self):
        for op in ["tril", "triu"]:
            for dtype in ALL:
                for shape, diagonal in TRIANGLES:
                    self.add(op, "v2", [("self", self.tensor(dtype, shape)),
                                        ("diagonal", Arg("int", diagonal))])
            self.add(op, "v2", [("self", self.tensor("f32", [5])), ("diagonal", Arg("int", 0))])

    def variances(self):
        for op in ["var.correction", "std.correction"]:
            for dtype in FLOATS + ["i32"]:  # integers: refused by both
                for shape, dim in [([3, 5], NONE), ([3, 5], Arg("ints", [1])),
                                   ([2, 3, 4], Arg("ints", [0, -1])), ([], NONE),
                                   ([0, 3], Arg("ints", [0])), ([4, 6], Arg("ints", []))]:
                    correction = self.rng.choice([NONE, Arg("int", 0), Arg("int", 1),
                                                  Arg("int", 2), Arg("int", 10), Arg("int", -1)])
                    self.add(op, "v2", [("self", self.tensor(dtype, shape, "normal")),
                                        ("dim", dim), ("correction", correction),
                                        ("keepdim", Arg("bool", self.rng.random() < 0.5))])
            self.add(op, "v2", [("self", self.tensor("f64", [12])), ("dim", NONE),
                                ("correction", NONE), ("keepdim", Arg("bool", False))])

    def logsumexps(self):
        for dtype in ALL:
            for shape, dim in [([3, 5], [1]), ([3, 5], [0]), ([2, 3, 4], [0, -1]), ([], [0]),
                               ([0, 3], [0])]:
                self.add("logsumexp", "v2", [("self", self.tensor(dtype, shape, "normal")),
                                             ("dim", Arg("ints", dim)),
                                             ("keepdim", Arg("bool", self.rng.random() < 0.5))])
        for dtype in ["f32", "f64", "bf16"]:  # NaN, infinities of both signs, huge values
            self.add("logsumexp", "v2", [("self", self.tensor(dtype, [6, 4])),
                                         ("dim", Arg("ints", [1])), ("keepdim", Arg("bool", False))])

    def scans(self):
        """cumsum and cumprod: integral and bool inputs give i64; `dtype` converts first."""
        for op in ["cumsum", "cumprod"]:
            for dtype in ALL:
                for shape, dim in [([3, 5], 1), ([3, 5], 0), ([2, 3, 4], -2), ([], 0), ([0, 3], 1)]:
                    kind = "small" if op == "cumprod" else "special"
                    self.add(op, "v2", [("self", self.tensor(dtype, shape, kind)),
                                        ("dim", Arg("int", dim)), ("dtype", NONE)])
            for dtype, to in [("i32", "f64"), ("f32", "f64"), ("i8", "i8"), ("f32", "i32"),
                              ("i64", "bool")]:
                self.add(op, "v2", [("self", self.tensor(dtype, [4, 6], "normal")),
                                    ("dim", Arg("int", 1)), ("dtype", Arg("dtype", to))])

    def extremes(self):
        """max.dim and min.dim: NaN is the extreme at its first index, ties give the first."""
        for op in ["max.dim", "min.dim"]:
            for dtype in ALL:
                for shape, dim in [([3, 5], 1), ([3, 5], 0), ([2, 3, 4], -1), ([], 0), ([0, 3], 1),
                                   ([3, 0], 1)]:
                    self.add(op, "v2", [("self", self.tensor(dtype, shape)),
                                        ("dim", Arg("int", dim)),
                                        ("keepdim", Arg("bool", self.rng.random() < 0.5))])

    def convolutions(self):
        """convolution, convolution_backward and the three primitives; the primitives'
        expected values come from aten::convolution(_backward) (torch_fn)."""
        for dtype in ["f32", "f64", "bf16", "i32", "i64"]:
            for inp, wt, stride, padding, dilation, groups in CONVOLUTIONS:
                x, w = self.tensor(dtype, inp, "normal"), self.tensor(dtype, wt, "normal")
                params = [("stride", ints(stride)), ("padding", ints(padding)),
                          ("dilation", ints(dilation))]
                self.add("convolution", "v2", [
                    ("input", x), ("weight", w), ("bias", self.tensor(dtype, [wt[0]], "normal"))]
                    + params + [("transposed", Arg("bool", False)),
                                ("output_padding", ints([0])), ("groups", Arg("int", groups))])
                self.add("convolution_forward", "v2",
                         [("input", x), ("weight", w), ("bias", NONE)] + params +
                         [("groups", Arg("int", groups))], torch_fn=convolution_forward)
                if dtype not in FLOATS:  # PyTorch 1.13 has no integer convolution gradients
                    continue
                g = self.tensor(dtype, conv_output(inp, wt, stride, padding, dilation), "normal")
                last = [("groups", Arg("int", groups))]
                self.add("convolution_backward_input", "v2", [
                    ("grad_output", g), ("weight", w), ("input_size", ints(inp))] + params + last,
                    torch_fn=convolution_backward_input)
                self.add("convolution_backward_weight", "v2", [
                    ("grad_output", g), ("input", x), ("weight_size", ints(wt))] + params + last,
                    torch_fn=convolution_backward_weight)
                self.add("convolution_backward", "v2", [
                    ("grad_output", g), ("input", x), ("weight", w),
                    ("bias_sizes", ints([wt[0]]))] + params + [
                    ("transposed", Arg("bool", False)), ("output_padding", ints([0]))] + last +
                    [("output_mask", ints([1, 1, 1]))], torch_fn=convolution_backward)
        self.transposed_convolutions()

    def transposed_convolutions(self):
        """convolution and convolution_backward with transposed=True, and the output_padding
        PyTorch takes below the dilation (convolution-transposed-output-padding). Not bf16:
        PyTorch 1.13's bf16 transposed convolution (oneDNN's) refuses any input, checking its
        channels against the weight's dim 1."""
        for dtype in ["f32", "f64"]:
            for inp, wt, stride, padding, output_padding, groups in TRANSPOSED:
                x, w = self.tensor(dtype, inp, "normal"), self.tensor(dtype, wt, "normal")
                params = [("stride", ints(stride)), ("padding", ints(padding)),
                          ("dilation", ints([1])), ("transposed", Arg("bool", True)),
                          ("output_padding", ints(output_padding)),
                          ("groups", Arg("int", groups))]
                y = torch.convolution(x.torch(), w.torch(), None, stride, padding, [1], True,
                                      output_padding, groups)
                bias = self.tensor(dtype, [y.shape[1]], "normal")
                self.add("convolution", "v2", [("input", x), ("weight", w), ("bias", bias)] +
                         params)
                self.add("convolution_backward", "v2", [
                    ("grad_output", self.tensor(dtype, list(y.shape), "normal")), ("input", x),
                    ("weight", w), ("bias_sizes", ints([y.shape[1]]))] + params +
                    [("output_mask", ints([1, 1, 1]))], torch_fn=convolution_backward)
        self.add("convolution", "v2", [
            ("input", self.tensor("f32", [1, 2, 5, 5], "normal")),
            ("weight", self.tensor("f32", [2, 2, 3, 3], "normal")), ("bias", NONE),
            ("stride", ints([1])), ("padding", ints([0])), ("dilation", ints([2])),
            ("transposed", Arg("bool", True)), ("output_padding", ints([1])),
            ("groups", Arg("int", 1))])


    def poolings(self):
        """max_pool2d_with_indices, avg_pool2d and _adaptive_avg_pool2d with their gradients;
        the max gradient takes PyTorch's own indices."""
        for dtype in ["f32", "f64", "bf16"]:
            for shape, k, s, p, d, ceil in POOLS:
                x = self.tensor(dtype, shape, "special")
                window = [("kernel_size", ints(k)), ("stride", ints(s)), ("padding", ints(p))]
                self.add("max_pool2d_with_indices", "v2", [("self", x)] + window + [
                    ("dilation", ints(d)), ("ceil_mode", Arg("bool", ceil))])
                out, idx = torch.ops.aten.max_pool2d_with_indices(x.torch(), k, s, p, d, ceil)
                self.add("max_pool2d_with_indices_backward", "v2", [
                    ("grad_output", self.tensor(dtype, list(out.shape), "normal")), ("self", x)] +
                    window + [("dilation", ints(d)), ("ceil_mode", Arg("bool", ceil)),
                              ("indices", exact(idx))])
                for include_pad, divisor in [(True, NONE), (False, NONE), (True, Arg("int", 3))]:
                    tail = [("ceil_mode", Arg("bool", ceil)),
                            ("count_include_pad", Arg("bool", include_pad)),
                            ("divisor_override", divisor)]
                    self.add("avg_pool2d", "v2", [("self", x)] + window + tail)
                    avg = torch.ops.aten.avg_pool2d(x.torch(), k, s, p, ceil, include_pad,
                                                    None if divisor is NONE else divisor.value)
                    self.add("avg_pool2d_backward", "v2", [
                        ("grad_output", self.tensor(dtype, list(avg.shape), "normal")),
                        ("self", x)] + window + tail)
            for shape, size in [([2, 3, 7, 9], [3, 4]), ([1, 2, 4, 5], [9, 11]), ([3, 6, 6], [1, 1])]:
                x = self.tensor(dtype, shape, "normal")
                self.add("_adaptive_avg_pool2d", "v2", [("self", x), ("output_size", ints(size))])
                self.add("_adaptive_avg_pool2d_backward", "v2", [
                    ("grad_output", self.tensor(dtype, shape[:-2] + size, "normal")), ("self", x)])

    def batch_norms(self):
        """native_batch_norm (training and evaluation, with and without the affine parameters
        and running statistics) and its backward given PyTorch's own saved statistics."""
        for dtype in ["f32", "f64", "bf16"]:
            for shape, training, affine, running in [([2, 3, 4, 5], True, True, True),
                                                     ([4, 3, 5], True, False, False),
                                                     ([8, 6], True, True, True),
                                                     ([2, 3, 4, 5], False, True, True),
                                                     ([3, 4, 2, 2, 2], False, False, True)]:
                c = shape[1]
                x = self.tensor(dtype, shape, "normal")
                w = self.tensor(dtype, [c], "normal") if affine else NONE
                b = self.tensor(dtype, [c], "normal") if affine else NONE
                # The running statistics are written in place: never a stride-0 view.
                rm = self.tensor(dtype, [c], "normal", "contiguous") if running else NONE
                rv = self.tensor(dtype, [c], "positive", "contiguous") if running else NONE
                common = [("weight", w), ("bias", b), ("running_mean", rm), ("running_var", rv)]
                self.add("native_batch_norm", "v2", [("input", x)] + common + [
                    ("training", Arg("bool", training)), ("momentum", Arg("float", 0.1)),
                    ("eps", Arg("float", 1e-5))])
                if not affine:
                    continue
                _, mean, invstd = torch.ops.aten.native_batch_norm(
                    x.torch(), w.torch(), b.torch(), rm.torch(), rv.torch(), training, 0.1, 1e-5)
                saved = [("save_mean", exact(mean) if training else NONE),
                         ("save_invstd", exact(invstd) if training else NONE)]
                self.add("native_batch_norm_backward", "v2", [
                    ("grad_out", self.tensor(dtype, shape, "normal")), ("input", x),
                    ("weight", w), ("running_mean", rm), ("running_var", rv)] + saved + [
                    ("train", Arg("bool", training)), ("eps", Arg("float", 1e-5)),
                    ("output_mask", ints([1, 1, 1]))], torch_fn=batch_norm_backward)

    def group_norms(self):
        """native_group_norm and its backward given PyTorch's own mean and rstd; contiguous
        tensors only, which PyTorch 1.13's kernels require (Backplane takes any layout)."""
        for dtype in ["f32", "f64", "bf16"]:
            for shape, group, affine in [([2, 4, 3, 5], 2, True), ([3, 6, 7], 6, True),
                                         ([2, 6, 2, 2, 2], 1, False), ([5, 8], 4, True)]:
                if dtype == "bf16" and shape == [5, 8]:
                    # Groups of 2 values: rstd is 1 / |x1 - x2| * sqrt(2), which PyTorch's
                    # bf16 kernel rounds on the way (3% off the exact value); f32/f64 agree.
                    continue
                n, c = shape[0], shape[1]
                hxw = math.prod(shape[2:])
                x = self.tensor(dtype, shape, "normal", "contiguous")
                w = self.tensor(dtype, [c], "normal", "contiguous") if affine else NONE
                b = self.tensor(dtype, [c], "normal", "contiguous") if affine else NONE
                sizes = [("N", Arg("int", n)), ("C", Arg("int", c)), ("HxW", Arg("int", hxw)),
                         ("group", Arg("int", group))]
                self.add("native_group_norm", "v2", [("input", x), ("weight", w), ("bias", b)] +
                         sizes + [("eps", Arg("float", 1e-5))])
                if not affine:  # PyTorch 1.13's backward fails on weight=None from Python
                    continue
                _, mean, rstd = torch.ops.aten.native_group_norm(
                    x.torch(), None if w is NONE else w.torch(), None if b is NONE else b.torch(),
                    n, c, hxw, group, 1e-5)
                self.add("native_group_norm_backward", "v2", [
                    ("grad_out", self.tensor(dtype, shape, "normal", "contiguous")), ("input", x),
                    ("mean", exact(mean)), ("rstd", exact(rstd)), ("weight", w)] + sizes +
                    [("output_mask", ints([1, 1, 1]))], torch_fn=group_norm_backward)

# Convolution geometries: input, weight, stride, padding, dilation, groups.
CONVOLUTIONS = [([2, 3, 6, 7], [4, 3, 3, 3], [1], [0], [1], 1),
                ([1, 4, 8, 8], [6, 2, 3, 3], [2], [1], [1], 2),
                ([1, 2, 9, 7], [3, 2, 3, 2], [2, 1], [2, 0], [2, 3], 1),
                ([2, 3, 11], [5, 3, 4], [2], [1], [2], 1),
                ([0, 3, 5, 5], [2, 3, 3, 3], [1], [1], [1], 1)]
# Transposed: input, weight [C_in, C_out / groups, *], stride, padding, output_padding, groups.
TRANSPOSED = [([2, 4, 5, 5], [4, 3, 3, 3], [2], [1], [1], 1),
              ([1, 4, 6], [4, 1, 3], [3], [0], [2], 2)]


# Pooling windows: input shape, kernel_size, stride, padding, dilation, ceil_mode.
POOLS = [([2, 3, 8, 8], [2], [], [0], [1], False),
         ([1, 2, 9, 9], [3], [2], [1], [1], False),
         ([1, 2, 9, 8], [3, 2], [1, 2], [1, 1], [1, 2], False),
         ([1, 2, 7, 7], [3], [2], [1], [1], True),
         ([3, 6, 5], [2], [2], [1], [1], True)]


def ints(values):
    return Arg("ints", values)


def conv_output(input_shape, weight_shape, stride, padding, dilation):
    spatial = len(input_shape) - 2
    expand = (lambda v: v * spatial if len(v) == 1 else v)
    s, p, d = expand(stride), expand(padding), expand(dilation)
    return [input_shape[0], weight_shape[0]] + [
        (input_shape[i + 2] + 2 * p[i] - d[i] * (weight_shape[i + 2] - 1) - 1) // s[i] + 1
        for i in range(spatial)]


def convolution_forward(input, weight, bias, stride, padding, dilation, groups):
    return torch.convolution(input, weight, bias, stride, padding, dilation, False, [0], groups)


def convolution_backward_input(grad_output, weight, input_size, stride, padding, dilation,
                               groups):
    input = torch.zeros(input_size, dtype=weight.dtype)
    return torch.ops.aten.convolution_backward(grad_output, input, weight, None, stride, padding,
                                               dilation, False, [0], groups,
                                               [True, False, False])[0]


def convolution_backward_weight(grad_output, input, weight_size, stride, padding, dilation,
                                groups):
    weight = torch.zeros(weight_size, dtype=input.dtype)
    return torch.ops.aten.convolution_backward(grad_output, input, weight, None, stride, padding,
                                               dilation, False, [0], groups,
                                               [False, True, False])[1]


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                         transposed, output_padding, groups, output_mask):
    """aten::convolution_backward with the mask as the bools it takes (docs/schema.md)."""
    return torch.ops.aten.convolution_backward(
        grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
        output_padding, groups, [bool(m) for m in output_mask])


def batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean,
                        save_invstd, train, eps, output_mask):
    """aten::native_batch_norm_backward with the mask as the bools it takes."""
    return torch.ops.aten.native_batch_norm_backward(
        grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps,
        [bool(m) for m in output_mask])


def group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask):
    """aten::native_group_norm_backward with the mask as the bools it takes."""
    return torch.ops.aten.native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C,
                                                     HxW, group, [bool(m) for m in output_mask])
