"""The seeded cases of the training op set (docs/training.md) for the differential test: the
activation gradients, the softmax gradients, the mse and nll/cross-entropy losses and the
optimizers' pointwise ops (addcmul, addcdiv, lerp.Scalar, zero_) and native_layer_norm with
its gradient, index_add and embedding_dense_backward, with broadcasting, 0-d and
empty operands, special values and PyTorch's dtype rules (mixed dtypes, what it refuses).
cases.Generator inherits TrainingCases and runs them as its last group, `training`, so they
draw their values after every other group's. Pinned inputs (`pinned`) are ones that once
exposed a difference from PyTorch.

Left out on purpose, as docs/training.md explains: activation gradients where PyTorch's f32
(f16) arithmetic overflows an intermediate that the reference, computing in double, does not
(huge gradients or |x|); gelu_backward at x = +-inf, and its tanh form at huge finite |x|,
where PyTorch gives NaN and the reference the limit."""

import torch

from harness import ALL, DTYPES, FLOATS, INTS, NONE, Arg, S, T, TensorArg, contiguous_strides
from inputs import NAN, INF

# (grad_output, self or output) of the activation gradients: equal, broadcast both ways, 0-d,
# empty; and the dtype pairs they promote.
GRADIENT_SHAPES = [([3, 4], [3, 4]), ([3, 1], [4]), ([], [5]), ([2, 0], [2, 1]), ([], [])]
MIXED = [("f32", "f64"), ("bf16", "f32"), ("f16", "bf16"), ("i32", "f32"), ("f64", "i64")]
# self, tensor1 and tensor2 of addcmul/addcdiv.
ADDC_SHAPES = [([3, 4], [3, 4], [3, 4]), ([3, 1], [1, 4], [4]), ([], [5], []),
               ([2, 0], [2, 1], [0]), ([], [], [])]


def exact(t):
    """A Tensor argument holding the torch tensor `t` (contiguous), bit for bit."""
    shape = list(t.shape)
    return T(TensorArg(t.detach().flatten().clone(), shape, contiguous_strides(shape)))


def pinned(values, dtype):
    """A Tensor argument of exactly `values` (a number gives a 0-d tensor) in `dtype`; floats
    are rounded from double."""
    source = torch.float64 if dtype in FLOATS else DTYPES[dtype]
    return exact(torch.tensor(values, dtype=source).to(DTYPES[dtype]))


class TrainingCases:
    """The `training` group of cases.Generator (which provides add, tensor, values, rng)."""

    def training(self):
        self.threshold_gradients()
        self.activation_gradients()
        self.softmax_gradients()
        self.mse_losses()
        self.nll_losses()
        self.optimizer_pointwise()
        self.layer_norms()
        self.indexed_writes()

    # --- activation gradients ----------------------------------------------------------
    def threshold_gradients(self):
        for dtype in ALL:
            thresholds = [0, 0.5, -1.5, NAN, INF] if dtype in FLOATS else [0, 2, -3, 1.5]
            for sg, ss in GRADIENT_SHAPES:
                self.add("threshold_backward", "training", [
                    ("grad_output", self.tensor(dtype, sg)), ("self", self.tensor(dtype, ss)),
                    ("threshold", S(self.rng.choice(thresholds)))], torch_fn=threshold_backward)
        for a, b in MIXED + [("u8", "i8"), ("bool", "i16"), ("i8", "bool")]:
            self.add("threshold_backward", "training", [
                ("grad_output", self.tensor(a, [2, 3])), ("self", self.tensor(b, [3])),
                ("threshold", S(1))], torch_fn=threshold_backward)
        for dtype, threshold in [("i8", 300), ("u8", -1), ("f16", 1e10), ("i32", True)]:
            self.add("threshold_backward", "training", [
                ("grad_output", self.tensor(dtype, [4])), ("self", self.tensor(dtype, [4])),
                ("threshold", S(threshold))], torch_fn=threshold_backward)

    def activation_gradients(self):
        """gelu_backward (both forms), silu_backward, sigmoid_backward and tanh_backward."""
        for op, second in [("gelu_backward", "self"), ("silu_backward", "self"),
                           ("sigmoid_backward", "output"), ("tanh_backward", "output")]:
            forms = [[("approximate", Arg("str", a))] for a in ["none", "tanh"]] \
                if op == "gelu_backward" else [[]]
            for form in forms:
                self.activation_gradient(op, second, form)

    def activation_gradient(self, op, second, form):
        # The gradient is moderate where x varies: the reference computes in double and
        # rounds once, PyTorch in the dtype (f32 for f16), where grad * factor can overflow
        # on the way (grad -3e38 in sigmoid_backward) or the factor round to 0 (inf * 0).
        # Infinite and NaN gradients meet x in (-1, 1), where every factor is moderate.
        # gelu's tanh form keeps |x| below where PyTorch's f32 x**3 overflows (NaN there,
        # the limit in the reference): "normal" values and the tails.
        tails = [-30.0, -10.0, -5.5, -1.0, -1e-8, 0.0, -0.0, 1e-8, 0.5, 5.5, 10.0, 30.0]
        grads = [NAN, INF, -INF, 0.0, -0.0, 1.0, -2.5, 1e-3]
        kind = "unit" if op in ("sigmoid_backward", "tanh_backward") else "normal"
        torch_fn = gelu_backward if op == "gelu_backward" else None
        for dtype in FLOATS:
            for sg, ss in GRADIENT_SHAPES:
                self.add(op, "training", [
                    ("grad_output", self.tensor(dtype, sg, "normal")),
                    (second, self.tensor(dtype, ss, kind))] + form, torch_fn)
            for xs, grad in [(tails, self.tensor(dtype, [len(tails)], "normal")),
                             (None, exact(torch.tensor(grads).to(DTYPES[dtype])))]:
                x = self.tensor(dtype, [len(grads)], "unit") if xs is None else pinned(xs, dtype)
                self.add(op, "training", [("grad_output", grad), (second, x)] + form, torch_fn)
        for a, b in MIXED + [("i32", "i32")]:
            self.add(op, "training", [("grad_output", self.tensor(a, [2, 3], "normal")),
                                      (second, self.tensor(b, [2, 3], kind))] + form, torch_fn)
        if form and form[0][1].value == "tanh":
            return
        for dtype in ["f32", "f64"]:  # NaN, infinities and huge values of x
            self.add(op, "training", [("grad_output", self.tensor(dtype, [4, 6], "normal")),
                                      (second, self.tensor(dtype, [4, 6]))] + form, torch_fn)

    # --- softmax gradients -------------------------------------------------------------
    def softmax_gradients(self):
        """_softmax_backward_data and _log_softmax_backward_data of a real forward output."""
        rows = torch.tensor([[0.0, -INF, 1.0, 2.0], [-1e30, 0.0, 1e30, 5.0],
                             [-3.0, -3.0, -3.0, -3.0], [0.5, -0.25, 8.0, -8.0]],
                            dtype=torch.float64)
        for op, forward in [("_softmax_backward_data", torch.softmax),
                            ("_log_softmax_backward_data", torch.log_softmax)]:
            for dtype in FLOATS:
                for shape, dim in [([3, 5], 1), ([3, 5], 0), ([], 0), ([2, 0], 1),
                                   ([2, 3, 4], -1), ([6], 0)]:
                    x = self.values.tensor(dtype, shape, "normal").torch().double()
                    y = forward(x, dim).to(DTYPES[dtype])
                    self.add(op, "training", [
                        ("grad_output", self.tensor(dtype, shape, "normal")),
                        ("output", exact(y)), ("dim", Arg("int", dim)),
                        ("input_dtype", Arg("dtype", dtype))])
                for dim in [1, 0]:
                    y = forward(rows, dim).to(DTYPES[dtype])
                    self.add(op, "training", [
                        ("grad_output", self.tensor(dtype, [4, 4], "normal")),
                        ("output", exact(y)), ("dim", Arg("int", dim)),
                        ("input_dtype", Arg("dtype", dtype))])
            self.softmax_gradient_dtypes(op, forward)

    def softmax_gradient_dtypes(self, op, forward):
        """A gradient with NaN and infinities, and the dtype rules of PyTorch's CPU kernels:
        grad_output and output of one floating dtype, which the result has whatever
        input_dtype names, except that an f32 gradient with input_dtype f16 (CUDA's
        half_to_float case) is refused."""
        y = forward(self.values.tensor("f32", [3, 4], "normal").torch(), 1)
        self.add(op, "training", [("grad_output", self.tensor("f32", [3, 4])),
                                  ("output", exact(y)), ("dim", Arg("int", 1)),
                                  ("input_dtype", Arg("dtype", "f32"))])
        for grad, input_dtype in [("f32", "f64"), ("f32", "bf16"), ("f64", "f16"),
                                  ("f64", "f32"), ("bf16", "f32"), ("f16", "f64")]:
            x = self.values.tensor(grad, [3, 4], "normal").torch().double()
            self.add(op, "training", [("grad_output", self.tensor(grad, [3, 4], "normal")),
                                      ("output", exact(forward(x, 1).to(DTYPES[grad]))),
                                      ("dim", Arg("int", 1)),
                                      ("input_dtype", Arg("dtype", input_dtype))])
        output = [[0.25, 0.75]] if op == "_softmax_backward_data" else [[-1.0, -0.5]]
        for dtype, input_dtype in [("f32", "f64"), ("f64", "f16")]:
            self.add(op, "training", [("grad_output", pinned([[1.0, -2.0]], dtype)),
                                      ("output", pinned(output, dtype)), ("dim", Arg("int", 1)),
                                      ("input_dtype", Arg("dtype", input_dtype))])
        # Both refuse: output of another dtype, f32 with input_dtype f16, an integer gradient.
        for grad, output, input_dtype in [("f32", "f64", "f32"), ("f32", "f32", "f16"),
                                          ("i32", "i32", "i32")]:
            self.add(op, "training", [("grad_output", self.tensor(grad, [3, 4], "normal")),
                                      ("output", self.tensor(output, [3, 4], "unit")),
                                      ("dim", Arg("int", 1)),
                                      ("input_dtype", Arg("dtype", input_dtype))])

    # --- losses ------------------------------------------------------------------------
    def mse_losses(self):
        shapes = [([3, 4], [3, 4]), ([3, 4], [4]), ([], []), ([0, 3], [0, 3]),
                  ([2, 3, 5], [3, 1])]
        for dtype in FLOATS:
            for ss, st in shapes:
                for reduction in [0, 1, 2]:
                    self.add("mse_loss", "training", [
                        ("self", self.tensor(dtype, ss, "normal")),
                        ("target", self.tensor(dtype, st, "normal")),
                        ("reduction", Arg("int", reduction))])
                    out_shape = list(torch.broadcast_shapes(ss, st)) if reduction == 0 else []
                    self.add("mse_loss_backward", "training", [
                        ("grad_output", self.tensor(dtype, out_shape, "normal")),
                        ("self", self.tensor(dtype, ss, "normal")),
                        ("target", self.tensor(dtype, st, "normal")),
                        ("reduction", Arg("int", reduction))])
            for reduction in [0, 1, 2]:  # NaN, infinities and overflowing squares
                self.add("mse_loss", "training", [("self", self.tensor(dtype, [9])),
                                                  ("target", self.tensor(dtype, [9])),
                                                  ("reduction", Arg("int", reduction))])
        self.add("mse_loss_backward", "training", [
            ("grad_output", self.tensor("f32", [3, 4])), ("self", self.tensor("f32", [3, 4])),
            ("target", self.tensor("f32", [4])), ("reduction", Arg("int", 0))])
        self.mse_loss_dtypes()

    def mse_loss_dtypes(self):
        """mse_loss promotes self and target (torch.result_type; an integer result is
        refused, PyTorch has no such kernel); its gradient takes three inputs of one dtype,
        integers too (the mean's norm 2 / numel truncated to an integer), and refuses mixed
        dtypes and bool."""
        for a, b in [("f32", "f64"), ("bf16", "f16"), ("i32", "f32"), ("f16", "f64"),
                     ("i64", "i64"), ("u8", "bf16")]:
            for reduction in [0, 1, 2]:
                self.add("mse_loss", "training", [("self", self.tensor(a, [2, 3], "normal")),
                                                  ("target", self.tensor(b, [3], "normal")),
                                                  ("reduction", Arg("int", reduction))])
        for a, x, b, y, reduction in [("f32", [[1.5, -2.0, 0.25]], "f64", [[0.5, 1.0, 2.0]], 1),
                                      ("bf16", [1.5, -2.0], "f16", [0.5, 1.0], 0),
                                      ("i32", [1, -2], "f32", [0.5, 1.0], 1)]:
            self.add("mse_loss", "training", [("self", pinned(x, a)), ("target", pinned(y, b)),
                                              ("reduction", Arg("int", reduction))])
        for dtype in INTS:
            for shape, reduction in [([2, 3], 0), ([2, 3], 1), ([2], 1), ([], 1), ([2, 3], 2)]:
                self.add("mse_loss_backward", "training", [
                    ("grad_output", self.tensor(dtype, shape if reduction == 0 else [], "normal")),
                    ("self", self.tensor(dtype, shape, "normal")),
                    ("target", self.tensor(dtype, shape[-1:], "normal")),
                    ("reduction", Arg("int", reduction))])
        self.add("mse_loss_backward", "training", [
            ("grad_output", pinned(1, "i64")), ("self", pinned([3, -2], "i64")),
            ("target", pinned([1, 1], "i64")), ("reduction", Arg("int", 2))])
        for grad, a, b in [("f32", "f64", "f32"), ("f64", "f64", "f32"), ("f32", "f32", "i64"),
                           ("bf16", "f16", "bf16"), ("bool", "bool", "bool")]:
            self.add("mse_loss_backward", "training", [
                ("grad_output", self.tensor(grad, [], "normal")),
                ("self", self.tensor(a, [2, 3], "normal")),
                ("target", self.tensor(b, [2, 3], "normal")), ("reduction", Arg("int", 2))])

    def targets(self, rows, classes, ignored=0.25):
        """A Tensor argument of i64 class indices, [rows] (or 0-d where rows is None), each
        in [0, classes) or, with probability `ignored`, -100."""
        n = 1 if rows is None else rows
        values = [-100 if self.rng.random() < ignored else self.rng.randrange(classes)
                  for _ in range(n)]
        return exact(torch.tensor(values[0] if rows is None else values, dtype=torch.int64))

    def nll_losses(self):
        for dtype in FLOATS:
            # (rows, classes): rows None is a 1-D self (one row) with a 0-d target.
            for rows, classes in [(5, 4), (1, 3), (0, 3), (None, 5)]:
                for reduction in [0, 1, 2]:
                    for weighted in [False, True]:
                        self.nll_loss_calls(dtype, rows, classes, reduction, weighted)
            self.nll_loss_edges(dtype)
        self.nll_loss_rules()

    def nll_loss_calls(self, dtype, rows, classes, reduction, weighted):
        """nll_loss_forward, nll_loss_backward (given PyTorch's own total_weight), nll_loss
        and cross_entropy_loss of one shape, reduction and weighting."""
        shape = [classes] if rows is None else [rows, classes]
        self_ = self.tensor(dtype, shape, "normal")
        target = self.targets(rows, classes)
        weight = self.tensor(dtype, [classes], "positive") if weighted else NONE
        common = [("target", target), ("weight", weight), ("reduction", Arg("int", reduction)),
                  ("ignore_index", Arg("int", -100))]
        self.add("nll_loss_forward", "training", [("self", self_)] + common)
        # PyTorch's own total_weight for the gradient (f16: computed in f32).
        s, t = self_.torch(), target.torch()
        w = None if weight.kind == "none" else weight.torch()
        upcast = dtype == "f16"
        _, total = torch.ops.aten.nll_loss_forward(
            s.float() if upcast else s, t, w.float() if upcast and w is not None else w,
            reduction, -100)
        grad_shape = [rows] if reduction == 0 and rows is not None else []
        self.add("nll_loss_backward", "training", [
            ("grad_output", self.tensor(dtype, grad_shape, "normal")), ("self", self_)] +
            common + [("total_weight", exact(total.to(DTYPES[dtype])))])
        for op in ["nll_loss", "cross_entropy_loss"]:
            args = [("self", self.tensor(dtype, shape, "normal"))] + common
            if op == "cross_entropy_loss":
                args.append(("label_smoothing", Arg("float", 0.0)))
            self.add(op, "training", args)

    def nll_loss_edges(self, dtype):
        """Every row ignored; ignore_index a real class; NaN and infinities in self."""
        for reduction in [0, 1, 2]:
            for op in ["nll_loss_forward", "nll_loss", "cross_entropy_loss"]:
                extra = [("label_smoothing", Arg("float", 0.0))] \
                    if op == "cross_entropy_loss" else []
                self.add(op, "training", [
                    ("self", self.tensor(dtype, [3, 4], "normal")),
                    ("target", exact(torch.tensor([-100, -100, -100]))),
                    ("weight", NONE), ("reduction", Arg("int", reduction)),
                    ("ignore_index", Arg("int", -100))] + extra)
                self.add(op, "training", [
                    ("self", self.tensor(dtype, [6, 4])),
                    ("target", exact(torch.tensor([1, 0, 3, 1, 2, 1]))),
                    ("weight", self.tensor(dtype, [4], "positive")),
                    ("reduction", Arg("int", reduction)),
                    ("ignore_index", Arg("int", 1))] + extra)

    def nll_loss_rules(self):
        """A 1-D self's total_weight without reduction (its row's weight, 0 where ignored;
        a 2-D self's is 0), and what both must refuse: a class out of range, an i32 target,
        a weight of another dtype."""
        for target in [1, -100]:
            for weight in [NONE, pinned([0.5, 2.5, 1.0], "f32")]:
                self.add("nll_loss_forward", "training", [
                    ("self", pinned([-1.0, -2.0, -3.0], "f32")), ("target", pinned(target, "i64")),
                    ("weight", weight), ("reduction", Arg("int", 0)),
                    ("ignore_index", Arg("int", -100))])
        for target, weight in [(torch.tensor([0, 4, 1]), NONE),
                               (torch.tensor([0, 2, 1], dtype=torch.int32), NONE),
                               (torch.tensor([0, 2, 1]), self.tensor("f64", [4], "positive"))]:
            for op in ["nll_loss_forward", "nll_loss"]:
                self.add(op, "training", [
                    ("self", self.tensor("f32", [3, 4], "normal")), ("target", exact(target)),
                    ("weight", weight), ("reduction", Arg("int", 1)),
                    ("ignore_index", Arg("int", -100))])

    # --- the optimizers' pointwise ops ---------------------------------------------------
    def optimizer_pointwise(self):
        """addcmul, addcdiv, lerp.Scalar and zero_."""
        for op in ["addcmul", "addcdiv"]:
            self.addc(op)
        self.addc_pinned()
        self.lerp()
        for dtype in ALL:
            for shape in [[2, 3], [], [0]]:
                self.add("zero_", "training", [("self", self.tensor(dtype, shape))])

    def addc(self, op):
        """addcmul or addcdiv: computed in torch.result_type of the three inputs (f16/bf16 in
        f32, rounded once); an integer addcdiv is refused."""
        divisor = "nonzero" if op == "addcdiv" else "special"
        for dtype in ALL:
            values = [1, 0.5, -2, 1 / 3, 1e-3] if dtype in FLOATS else [1, 2, -3]
            for s0, s1, s2 in ADDC_SHAPES:
                self.add(op, "training", [
                    ("self", self.tensor(dtype, s0)), ("tensor1", self.tensor(dtype, s1)),
                    ("tensor2", self.tensor(dtype, s2, divisor)),
                    ("value", S(self.rng.choice(values)))])
        for dtype in FLOATS:  # a zero divisor, NaN and infinities everywhere
            self.add(op, "training", [
                ("self", self.tensor(dtype, [12])), ("tensor1", self.tensor(dtype, [12])),
                ("tensor2", self.tensor(dtype, [12])), ("value", S(-0.5))])
        for types in [("f32", "i32", "f64"), ("i32", "i64", "u8"), ("bf16", "f16", "f16"),
                      ("i8", "f32", "i8"), ("u8", "i16", "i16"), ("f16", "bf16", "f32"),
                      ("bf16", "i32", "bf16")]:
            self.add(op, "training", [
                ("self", self.tensor(types[0], [2, 3])),
                ("tensor1", self.tensor(types[1], [2, 3])),
                ("tensor2", self.tensor(types[2], [3], divisor)), ("value", S(2))])

    def addc_pinned(self):
        """Mixed dtypes where converting only some inputs loses bits (2147483646 and 16777217
        are not f32 values), and f16/bf16 where rounding each step differs from rounding
        once."""
        for op, t1, value in [("addcdiv", 2147483646, 2), ("addcmul", 16777217, 1)]:
            self.add(op, "training", [
                ("self", pinned([0.0], "f32")), ("tensor1", pinned([t1], "i32")),
                ("tensor2", pinned([3.0 if op == "addcdiv" else 1.0], "f64")),
                ("value", S(value))])
        self.add("addcmul", "training", [
            ("self", pinned([1.0], "bf16")), ("tensor1", pinned([1.0009765625], "f16")),
            ("tensor2", pinned([1.0009765625], "f16")), ("value", S(1))])
        self.add("addcdiv", "training", [
            ("self", pinned([-0.8984375], "bf16")),
            ("tensor1", pinned([9.183549615799121e-41], "bf16")),
            ("tensor2", pinned([-0.0], "bf16")), ("value", S(-0.5))])

    def lerp(self):
        # PyTorch 1.13 computes self + w (end - self) for every w < 0.5, negative weights
        # too, and end - (end - self)(1 - w) otherwise: with an infinite end the two differ.
        weights = [0, 0.25, 0.5, 0.75, 1, -0.25, -0.5, -1, 2, 1 / 3, 1e-3, NAN]
        for dtype in FLOATS:
            for ss, se in [([3, 4], [3, 4]), ([3, 1], [4]), ([], [5]), ([0, 2], [2]), ([], [])]:
                self.add("lerp.Scalar", "training", [
                    ("self", self.tensor(dtype, ss, "normal")),
                    ("end", self.tensor(dtype, se, "normal")),
                    ("weight", S(self.rng.choice(weights)))])
            for weight in weights:
                self.add("lerp.Scalar", "training", [("self", self.tensor(dtype, [8])),
                                                     ("end", self.tensor(dtype, [8])),
                                                     ("weight", S(weight))])
        for weight in [-1, -0.5]:
            self.add("lerp.Scalar", "training", [("self", pinned([-3.84375, 1.0], "f32")),
                                                 ("end", pinned([-INF, INF], "f32")),
                                                 ("weight", S(weight))])
        for a, b in [("f32", "f64"), ("i32", "i32"), ("f16", "f32")]:
            self.add("lerp.Scalar", "training", [("self", self.tensor(a, [3])),
                                                 ("end", self.tensor(b, [3])),
                                                 ("weight", S(0.5))])

    # --- native_layer_norm and its gradient -----------------------------------------------
    def layer_norms(self):
        """native_layer_norm, and native_layer_norm_backward given PyTorch's own mean and rstd
        (all three gradients, with weight and bias: a masked gradient is None, which the
        harness does not compare; test_training.py covers the masks)."""
        for dtype in ["f32", "f64", "bf16"]:
            for shape, norm in [([3, 8], [8]), ([2, 3, 4], [3, 4]), ([5], [5]), ([0, 4], [4])]:
                for affine in [True, False]:
                    x = self.tensor(dtype, shape, "normal")
                    w = self.tensor(dtype, norm, "normal") if affine else NONE
                    b = self.tensor(dtype, norm, "normal") if affine else NONE
                    common = [("normalized_shape", Arg("ints", norm)), ("weight", w),
                              ("bias", b)]
                    self.add("native_layer_norm", "training",
                             [("input", x)] + common + [("eps", Arg("float", 1e-5))])
                    if not affine:  # PyTorch refuses weight=None with output_mask[1] set
                        continue
                    _, mean, rstd = torch.ops.aten.native_layer_norm(
                        x.torch(), norm, None if not affine else w.torch(),
                        None if not affine else b.torch(), 1e-5)
                    self.add("native_layer_norm_backward", "training", [
                        ("grad_out", self.tensor(dtype, shape, "normal")), ("input", x),
                        ("normalized_shape", Arg("ints", norm)), ("mean", exact(mean)),
                        ("rstd", exact(rstd)), ("weight", w), ("bias", b),
                        ("output_mask", Arg("ints", [1, 1, 1]))],
                        torch_fn=layer_norm_backward)

    # --- writes through indices ----------------------------------------------------------
    def index(self, values, shape=None, dtype="i64"):
        """An index Tensor argument of exactly `values` (flat, row-major) in `shape`."""
        idx = self.values.tensor(dtype, [len(values)] if shape is None else shape,
                                 layout="contiguous")
        idx.base = torch.tensor(values, dtype=idx.base.dtype)
        return T(idx)

    def indexed_writes(self):
        """index_add over repeated indices, dims, 0-d and empty operands, a broadcast source,
        alpha of each kind (an integer tensor truncates a float alpha, as PyTorch), and the
        inputs PyTorch refuses; embedding_dense_backward with padding and frequency scaling."""
        layouts = [([4, 3], 0, [3, 0, 0, 2, 3]), ([4, 3], 1, [2, 2, 0]), ([2, 3, 4], -1, [1, 1, 0]),
                   ([5], 0, [4, 0, 4]), ([], 0, [0]), ([4, 3], 0, [])]
        for dtype in ALL:
            alphas = [1, -1.5] if dtype in FLOATS else [True] if dtype == "bool" else [1, 3]
            for (shape, dim, index), alpha in zip(layouts, alphas * 3):
                source = list(shape)
                if source:
                    source[dim] = len(index)
                self.add("index_add", "training", [
                    ("self", self.tensor(dtype, shape)), ("dim", Arg("int", dim)),
                    ("index", self.index(index, dtype=self.rng.choice(["i64", "i32"]))),
                    ("source", self.tensor(dtype, source)), ("alpha", S(alpha))])
        for args in [(("i32", [3], 0, [0], [1]), 2.5), (("f32", [4, 3], 0, [1, 1], [2, 1]), 1),
                     (("f32", [4, 3], 0, [4], [1, 3]), 1), (("f32", [4, 3], 0, [0], [1, 3]), 1),
                     (("f32", [4, 3], 0, [0], [1, 4]), 1), (("i8", [2], 0, [1], [1]), 300)]:
            (dtype, shape, dim, index, source), alpha = args
            self.add("index_add", "training", [
                ("self", self.tensor(dtype, shape)), ("dim", Arg("int", dim)),
                ("index", self.index(index)), ("source", self.tensor(dtype, source)),
                ("alpha", S(alpha))])
        self.add("index_add", "training", [
            ("self", self.tensor("f32", [3])), ("dim", Arg("int", 0)),
            ("index", self.index([0])), ("source", self.tensor("f64", [1])), ("alpha", S(1))])
        for dtype in FLOATS:
            for index, shape, rows, padding, scale in [
                    ([3, 0, 0, 2, 3, 3], [6], 5, -1, False), ([1, 1, 0, 4, 1, 2], [2, 3], 5, 1, False),
                    ([3, 0, 0, 2, 3, 3], [6], 4, -1, True), ([2, 2, 1, 0], [4], 3, 2, True),
                    ([2], [], 3, -1, False), ([], [0], 3, -1, False)]:
                self.add("embedding_dense_backward", "training", [
                    ("grad_output", self.tensor(dtype, shape + [4], "normal")),
                    ("indices", self.index(index, shape, self.rng.choice(["i64", "i32"]))),
                    ("num_weights", Arg("int", rows)), ("padding_idx", Arg("int", padding)),
                    ("scale_grad_by_freq", Arg("bool", scale))])


def layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
                        output_mask):
    """aten::native_layer_norm_backward with the mask as the bools it takes (Backplane's
    bool[] is an int list of 0 and 1, docs/schema.md)."""
    return torch.ops.aten.native_layer_norm_backward(
        grad_out, input, normalized_shape, mean, rstd, weight, bias,
        [bool(m) for m in output_mask])


def threshold_backward(grad_output, self, threshold):
    """aten::threshold_backward (torch has no Python function of it)."""
    return torch.ops.aten.threshold_backward(grad_output, self, threshold)


def gelu_backward(grad_output, self, approximate):
    """aten::gelu_backward of the operands broadcast and promoted first, as its TensorIterator
    kernel would take them: PyTorch 1.13's oneDNN path (f32 and bf16) refuses operands it
    would have to broadcast or convert ("could not create a primitive descriptor for a
    reorder primitive")."""
    dtype = torch.result_type(grad_output, self)
    grad, x = torch.broadcast_tensors(grad_output.to(dtype), self.to(dtype))
    return torch.ops.aten.gelu_backward(grad.contiguous(), x.contiguous(),
                                        approximate=approximate)
