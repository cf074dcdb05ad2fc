"""The seeded cases of the differential test: every op and overload of op set v1, over
every dtype (PyTorch decides which it accepts; where it refuses, the reference must refuse
too), with broadcasting, 0-d and wrapped-number operands, every layout class and special
values. Each generator appends Case objects; `all_cases()` gives them stable ids."""

import math
import random

import torch

from harness import ALL, DTYPES, FLOATS, Arg, Case, TensorArg, contiguous_strides
from inputs import NAN, INF, Values

UNARY = ["neg", "abs", "sign", "exp", "log", "sqrt", "rsqrt", "reciprocal", "sin", "cos",
         "tanh", "sigmoid", "erf", "relu", "floor", "ceil", "logical_not", "silu"]
BINARY = ["add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "pow.Tensor_Tensor",
          "maximum", "minimum", "eq.Tensor", "ne.Tensor", "lt.Tensor", "le.Tensor", "gt.Tensor",
          "ge.Tensor", "logical_and", "logical_or"]
COMPARE_SCALAR = ["eq.Scalar", "ne.Scalar", "lt.Scalar", "le.Scalar", "gt.Scalar", "ge.Scalar"]
BROADCAST_SHAPES = [([3, 4], [3, 4]), ([3, 1], [1, 4]), ([5], []), ([], [5]), ([2, 0], [2, 1]),
                    ([], []), ([2, 3, 5], [3, 1])]
ELEMENTWISE_SHAPES = [[], [7], [3, 4], [0], [2, 3, 5], [1]]


def T(t):
    """A Tensor argument holding the TensorArg `t`."""
    return Arg("tensor", t)


def S(v):
    """A Scalar argument: a Python bool, int or float, as PyTorch's Python API takes it."""
    return Arg("scalar", v)


NONE = Arg("none")


class Generator:
    def __init__(self, seed):
        self.values = Values(seed)
        self.rng = random.Random(seed + 1)
        self.cases = []

    def add(self, op, family, args, torch_fn=None, tags=()):
        self.cases.append(Case(op, list(args), family, torch_fn, tags=set(tags)))

    def tensor(self, dtype, shape, kind="special", layout=None):
        """A Tensor argument of seeded values (inputs.Values kinds), in `layout` or a seeded
        layout class."""
        return T(self.values.tensor(dtype, shape, kind, layout or self.values.layout()))

    def dtype_pairs(self, extra_per_dtype=3):
        """Every dtype with itself, and `extra_per_dtype` seeded partners of other dtypes."""
        pairs = [(d, d) for d in ALL]
        for d in ALL:
            pairs += [(d, o) for o in self.rng.sample([o for o in ALL if o != d], extra_per_dtype)]
        return pairs

    # --- elementwise -------------------------------------------------------------------
    def unary(self):
        for op in UNARY:
            for dtype in ALL:
                for shape in ELEMENTWISE_SHAPES:
                    self.add(op, "unary", [("self", self.tensor(dtype, shape))])
        for approximate in ["none", "tanh"]:
            for dtype in ALL:
                for shape in ELEMENTWISE_SHAPES:
                    self.add("gelu", "unary", [("self", self.tensor(dtype, shape)),
                                               ("approximate", Arg("str", approximate))])
        for dtype in FLOATS:  # the far tails and the points where the formulas cancel
            tail = [-30.0, -10.0, -5.5, -1e-8, 0.0, -0.0, 1e-8, 5.5, 10.0, 30.0, NAN, INF, -INF]
            base = torch.tensor(tail, dtype=torch.float64).to(DTYPES[dtype])
            for approximate in ["none", "tanh"]:
                self.add("gelu", "unary", [("self", T(TensorArg(base, [len(tail)], [1]))),
                                           ("approximate", Arg("str", approximate))])

    def binary(self):
        for op in BINARY:
            kind = "small_int" if op.startswith("pow") else "special"
            for a, b in self.dtype_pairs():
                for sa, sb in BROADCAST_SHAPES:
                    second = "exponent" if op.startswith("pow") else "other"
                    args = [("self", self.tensor(a, sa)), (second, self.tensor(b, sb, kind))]
                    if op in ("add.Tensor", "sub.Tensor"):
                        args.append(("alpha", S(self.alpha_for(a, b))))
                    self.add(op, "binary", args)
        for mode in [None, "trunc", "floor"]:
            for a, b in self.dtype_pairs():
                for sa, sb in BROADCAST_SHAPES:
                    self.add("div.Tensor_mode", "binary",
                             [("self", self.tensor(a, sa)),
                              ("other", self.tensor(b, sb, "nonzero")),
                              ("rounding_mode", Arg("str", mode) if mode else NONE)])
                # Division by zero, and the signs of zero results.
                self.add("div.Tensor_mode", "binary",
                         [("self", self.tensor(a, [8], "special", "contiguous")),
                          ("other", self.tensor(b, [8], "special", "contiguous")),
                          ("rounding_mode", Arg("str", mode) if mode else NONE)])

    def alpha_for(self, a, b):
        promoted = torch.promote_types(DTYPES[a], DTYPES[b])
        if promoted == torch.bool:
            return self.rng.choice([True, False])
        if promoted.is_floating_point:
            # 1/3 and 1e-40 are not representable in f32: an f64 result must use them exactly.
            return self.rng.choice([1, 2, -3, 0.5, 1 / 3, 1e-40, 2.5])
        return self.rng.choice([1, 2, -3, 0])

    def scalar_forms(self):
        scalars = [3, -2, 0, 2.5, -0.5, True, False, 1e10, -0.0, 2**40]
        ops = ["add.Scalar", "sub.Scalar", "mul.Scalar", "div.Scalar", "pow.Tensor_Scalar"] + \
            COMPARE_SCALAR
        for op in ops:
            for dtype in ALL:
                for value in self.rng.sample(scalars, 5) + [NAN if op in COMPARE_SCALAR else 2]:
                    args = [("self", self.tensor(dtype, self.rng.choice(ELEMENTWISE_SHAPES))),
                            ("exponent" if op.startswith("pow") else "other", S(value))]
                    if op in ("add.Scalar", "sub.Scalar"):
                        args.append(("alpha", S(self.rng.choice([1, 2, True]))))
                    self.add(op, "binary", args)
        for mode in ["trunc", "floor"]:
            for dtype in ALL:
                for value in [3, -2, 2.5, -0.5, 0]:
                    self.add("div.Scalar_mode", "binary",
                             [("self", self.tensor(dtype, [7])), ("other", S(value)),
                              ("rounding_mode", Arg("str", mode))])
        for dtype in ALL:  # pow.Scalar: a Python number to a tensor's powers
            for base in [2, -1, 0, 2.5, True, 1.0, 1e300, 3]:
                self.add("pow.Scalar", "binary",
                         [("self", S(base)), ("exponent", self.tensor(dtype, [6], "small_int"))])

    def clamp(self):
        bounds = [(None, 2), (-1, None), (-1.5, 2.5), (3, -3), (0.0, None), (None, -0.0),
                  (NAN, None), (-INF, INF), (True, None), (2**40, None)]
        for dtype in ALL:
            for lo, hi in bounds:
                self.add("clamp", "clamp", [("self", self.tensor(dtype, [9])),
                                            ("min", NONE if lo is None else S(lo)),
                                            ("max", NONE if hi is None else S(hi))])
        for a, b in self.dtype_pairs(2):
            for shape_min, shape_max in [([], None), (None, [4]), ([1], [4]), ([3, 1], []),
                                         (None, None)]:
                self.add("clamp.Tensor", "clamp", [
                    ("self", self.tensor(a, [3, 4])),
                    ("min", NONE if shape_min is None else self.tensor(b, shape_min)),
                    ("max", NONE if shape_max is None else self.tensor(b, shape_max))])

    def where(self):
        for a, b in self.dtype_pairs():
            for sc, sa, sb in [([4], [4], [4]), ([3, 1], [1, 4], []), ([], [2, 2], [2, 1])]:
                self.add("where.self", "where", [("condition", self.tensor("bool", sc)),
                                                 ("self", self.tensor(a, sa)),
                                                 ("other", self.tensor(b, sb))])
        self.add("where.self", "where", [("condition", self.tensor("u8", [4], "small_int")),
                                         ("self", self.tensor("f32", [4])),
                                         ("other", self.tensor("f32", [4]))])
        scalars = [1, 0, 2.5, -0.0, True, False, 300, NAN, 1e40]
        for x in scalars:
            for y in self.rng.sample(scalars, 3):
                self.add("where.Scalar", "where",
                         [("condition", self.tensor("bool", [5])), ("self", S(x)), ("other", S(y))])
        for dtype in ALL:
            for x in self.rng.sample(scalars, 4):
                self.add("where.ScalarSelf", "where", [("condition", self.tensor("bool", [2, 3])),
                                                       ("self", S(x)),
                                                       ("other", self.tensor(dtype, [1, 3]))])
                self.add("where.ScalarOther", "where", [("condition", self.tensor("bool", [2, 3])),
                                                        ("self", self.tensor(dtype, [3])),
                                                        ("other", S(x))])

    def nan_positions(self):
        """NaN in each operand position of each op that propagates NaN, alone and together."""
        def vec(dtype, values):
            return T(TensorArg(torch.tensor(values, dtype=torch.float64).to(DTYPES[dtype]),
                               [len(values)], [1]))
        for dtype in FLOATS:
            first, second = [NAN, 1.0, NAN, -0.0], [2.0, NAN, NAN, 0.0]
            for op in BINARY + ["div.Tensor_mode"]:
                b = "exponent" if op.startswith("pow") else "other"
                args = [("self", vec(dtype, first)), (b, vec(dtype, second))]
                if op in ("add.Tensor", "sub.Tensor"):
                    args.append(("alpha", S(2)))
                if op == "div.Tensor_mode":
                    args.append(("rounding_mode", Arg("str", "floor")))
                self.add(op, "nan", args)
            ones = [1.0, 1.0, 1.0, 1.0]
            for lo, hi in [(first, None), (None, first), (second, first), (ones, ones)]:
                self.add("clamp.Tensor", "nan", [
                    ("self", vec(dtype, first if lo is ones else ones)),
                    ("min", NONE if lo is None else vec(dtype, lo)),
                    ("max", NONE if hi is None else vec(dtype, hi))])
            for x, y in [(first, second), (second, first)]:
                self.add("where.self", "nan", [("condition", self.tensor("bool", [4])),
                                               ("self", vec(dtype, x)), ("other", vec(dtype, y))])
            nan_matrix = self.values.tensor(dtype, [3, 4], "normal", "contiguous")
            nan_matrix.base[5] = NAN
            clean = self.values.tensor(dtype, [4, 2], "normal", "contiguous")
            self.add("matmul", "nan", [("self", T(nan_matrix)), ("other", T(clean))])
            for beta in [0, 1]:  # beta = 0 ignores NaN in self
                self.add("addmm", "nan", [("self", vec(dtype, [NAN, 1.0])),
                                          ("mat1", T(nan_matrix)), ("mat2", T(clean)),
                                          ("beta", S(beta)), ("alpha", S(1))])
            for op in ["sum.dim_IntList", "mean.dim", "amax", "amin"]:
                args = [("self", T(nan_matrix)), ("dim", Arg("ints", [1])),
                        ("keepdim", Arg("bool", False))]
                if op in ("sum.dim_IntList", "mean.dim"):
                    args.append(("dtype", NONE))
                self.add(op, "nan", args)
            for op in ["argmax", "argmin"]:
                self.add(op, "nan", [("self", T(nan_matrix)), ("dim", Arg("int", 1)),
                                     ("keepdim", Arg("bool", False))])
            self.add("prod.dim_int", "nan", [("self", T(nan_matrix)), ("dim", Arg("int", 1)),
                                             ("keepdim", Arg("bool", False)), ("dtype", NONE)])

    def documented_differences(self):
        """The calls where docs/ops.md says the reference differs on purpose."""
        self.add("fill_.Scalar", "documented", [("self", self.tensor("i64", [2])),
                                                ("value", S(2.0**63))])
        for start, end, step in [(0, 5, INF), (-2**62, 2**62, 2**61)]:
            self.add("arange.start_step", "documented", [
                ("start", S(start)), ("end", S(end)), ("step", S(step)), ("dtype", NONE),
                ("device", Arg("device"))])
        index = self.values.tensor("i64", [3], layout="contiguous")
        index.base = torch.zeros(3, dtype=torch.int64)
        self.add("index_select", "documented", [("self", self.tensor("f32", [])),
                                                ("dim", Arg("int", 0)), ("index", T(index))])
        indices = self.values.tensor("i64", [2], layout="contiguous")
        indices.base = torch.tensor([1, 2])
        self.add("embedding", "documented", [("weight", self.tensor("f32", [5, 3])),
                                             ("indices", T(indices)),
                                             ("padding_idx", Arg("int", 7))])
        # -3e38 * -2 is beyond f32 but not beyond double: inf - inf is NaN only in f32.
        big = torch.tensor([-3e38, INF], dtype=torch.float32)
        weights = torch.tensor([-2.0, -2.5], dtype=torch.float32)
        self.add("matmul", "documented", [("self", T(TensorArg(big, [1, 2], [2, 1]))),
                                          ("other", T(TensorArg(weights, [2, 1], [1, 1])))])
        for input_shape, weight_shape, bias_shape in [([5, 2, 3], [4, 3], [2, 4]),
                                                      ([2, 3], [3], [2])]:
            self.add("linear", "documented", [
                ("input", self.tensor("f32", input_shape, "normal", "contiguous")),
                ("weight", self.tensor("f32", weight_shape, "normal")),
                ("bias", self.tensor("f32", bias_shape, "normal"))])

    # --- reductions ----------------------------------------------------------------------
    def reductions(self):
        shapes_dims = [([3, 4], None), ([3, 4], []), ([3, 4], [0]), ([2, 3, 4], [-1, 0]),
                       ([], [0]), ([0, 3], [0]), ([5], [0]), ([2, 3, 4], [1])]
        for op in ["sum.dim_IntList", "mean.dim"]:
            for dtype in ALL:
                for (shape, dims), out in zip(shapes_dims, [None, None, "f64", None, None, None,
                                                            None, "f32"]):
                    for kind in ["normal", "special"]:
                        self.add(op, "reduction", [
                            ("self", self.tensor(dtype, shape, kind)),
                            ("dim", NONE if dims is None else Arg("ints", dims)),
                            ("keepdim", Arg("bool", self.rng.random() < 0.5)),
                            ("dtype", NONE if out is None else Arg("dtype", out))])
        for dtype in ALL:
            for shape, dim in [([3, 4], 1), ([2, 3, 4], 0), ([], 0), ([0, 2], 0), ([7], -1)]:
                for kind in ["small_int", "special"]:
                    self.add("prod.dim_int", "reduction", [
                        ("self", self.tensor(dtype, shape, kind)), ("dim", Arg("int", dim)),
                        ("keepdim", Arg("bool", self.rng.random() < 0.5)),
                        ("dtype", NONE if self.rng.random() < 0.7 else Arg("dtype", "f64"))])
            for shape in [[3, 4], [], [0]]:
                self.add("prod", "reduction", [("self", self.tensor(dtype, shape, "small_int")),
                                               ("dtype", NONE)])
            for op in ["amax", "amin"]:
                for shape, dims in [([3, 4], [1]), ([3, 4], []), ([2, 3, 4], [0, 2]), ([], []),
                                    ([0, 3], [1])]:
                    self.add(op, "reduction", [("self", self.tensor(dtype, shape)),
                                               ("dim", Arg("ints", dims)),
                                               ("keepdim", Arg("bool", self.rng.random() < 0.5))])
            for op in ["argmax", "argmin"]:
                for shape, dim in [([3, 4], 1), ([3, 4], None), ([5], 0), ([], None), ([2, 3], 0)]:
                    kind = self.rng.choice(["special", "small_int"])
                    self.add(op, "reduction", [
                        ("self", self.tensor(dtype, shape, kind)),
                        ("dim", NONE if dim is None else Arg("int", dim)),
                        ("keepdim", Arg("bool", self.rng.random() < 0.5))])
            for op in ["all.dim", "any.dim"]:
                for shape, dim in [([3, 4], 1), ([2, 3], 0), ([], 0), ([0, 2], 0)]:
                    self.add(op, "reduction", [("self", self.tensor(dtype, shape, "small_int")),
                                               ("dim", Arg("int", dim)),
                                               ("keepdim", Arg("bool", self.rng.random() < 0.5))])
            for op in ["all", "any"]:
                for shape in [[3, 4], [], [0], [5]]:
                    self.add(op, "reduction", [("self", self.tensor(dtype, shape, "small_int"))])

    # --- data movement and factories -------------------------------------------------------
    def data_movement(self):
        self.copies_and_fills()
        self.arange_and_cat()
        self.indexing()

    def copies_and_fills(self):
        for dst in ALL:  # every pair of dtypes, with special values
            for src in ALL:
                for shape_dst, shape_src in [([9], [9]), ([2, 5], [5]), ([3], [])]:
                    self.add("copy_", "copy", [("self", self.tensor(dst, shape_dst)),
                                               ("src", self.tensor(src, shape_src)),
                                               ("non_blocking", Arg("bool", False))])
        # Values that round twice through f32 on the way to f16/bf16.
        hard = torch.tensor([1 + 2**-11 + 2**-40, 1 + 2**-8 + 2**-40, 2**60 + 2**52 + 1],
                            dtype=torch.float64)
        for dst in ["f16", "bf16"]:
            self.add("copy_", "copy", [("self", self.tensor(dst, [3], layout="contiguous")),
                                       ("src", T(TensorArg(hard, [3], [1]))),
                                       ("non_blocking", Arg("bool", False))])
        fills = [0, -1, 2.5, 300, True, NAN, INF, 1e300, -0.0, 65519.99, -129, 2**63 - 1]
        for dtype in ALL:
            for value in fills:
                self.add("fill_.Scalar", "copy", [("self", self.tensor(dtype, [2, 3])),
                                                  ("value", S(value))])
            for vdtype in self.rng.sample(ALL, 4):
                self.add("fill_.Tensor", "copy", [("self", self.tensor(dtype, [2, 3])),
                                                  ("value", self.tensor(vdtype, []))])
        self.add("fill_.Tensor", "copy", [("self", self.tensor("f32", [3])),
                                          ("value", self.tensor("f32", [1]))])

    def arange_and_cat(self):
        ranges = [(0, 10, 1), (0, 1, 0.1), (5, 0, -1.5), (0, 300, 100), (-3, 3, 0.5), (1, 1, 1),
                  (0, 5, 0), (10, 0, 1), (0, 2**40, 2**38), (0.5, 3, 1)]
        for start, end, step in ranges:
            for dtype in [None] + ALL:
                self.add("arange.start_step", "factory", [
                    ("start", S(start)), ("end", S(end)), ("step", S(step)),
                    ("dtype", NONE if dtype is None else Arg("dtype", dtype)),
                    ("device", Arg("device"))])
        for dtypes, shapes, dim in [(["f32", "f32"], [[2, 3], [4, 3]], 0),
                                    (["i32", "f16"], [[2, 3], [2, 1]], 1),
                                    (["u8", "i8", "bool"], [[3], [2], [0]], 0),
                                    (["f64", "f32"], [[0], [2, 2]], -1),
                                    (["bf16"], [[2, 2, 2]], 2),
                                    (["i64", "f32"], [[], []], 0)]:
            self.add("cat", "copy", [("tensors", Arg("tensors", [
                self.values.tensor(d, s, "special", self.values.layout())
                for d, s in zip(dtypes, shapes)])), ("dim", Arg("int", dim))])

    def indexing(self):
        for dtype in ALL:
            for index_dtype in ["i64", "i32"]:
                for shape, dim, index in [([4, 3], 0, [3, 0, 0, 2]), ([4, 3], 1, [2]),
                                          ([4, 3], -1, []), ([5], 0, [4, 9])]:
                    idx = self.values.tensor(index_dtype, [len(index)], layout="contiguous")
                    idx.base = torch.tensor(index, dtype=idx.base.dtype)
                    self.add("index_select", "index", [("self", self.tensor(dtype, shape)),
                                                       ("dim", Arg("int", dim)), ("index", T(idx))])
            for shape, dim, index_shape in [([4, 3], 0, [2, 3]), ([4, 3], 1, [4, 5]),
                                            ([2, 3, 4], 2, [2, 3, 1])]:
                idx = self.values.tensor("i64", index_shape, layout="contiguous")
                n = 1
                for s in index_shape:
                    n *= s
                idx.base = torch.tensor([self.rng.randrange(shape[dim]) for _ in range(n)])
                self.add("gather", "index", [("self", self.tensor(dtype, shape)),
                                             ("dim", Arg("int", dim)), ("index", T(idx))])
        for wdtype in FLOATS + ["i32"]:
            idx = self.values.tensor("i64", [2, 3], layout="contiguous")
            idx.base = torch.tensor([self.rng.randrange(5) for _ in range(6)])
            self.add("embedding", "index", [("weight", self.tensor(wdtype, [5, 4])),
                                            ("indices", T(idx)), ("padding_idx", Arg("int", -1))])

    # --- normalisation, linear algebra, attention ---------------------------------------
    def nn(self):
        self.softmax()
        self.normalisation()
        self.linear_algebra()
        self.attention()

    def softmax(self):
        for op in ["softmax.int", "log_softmax.int"]:
            for dtype in FLOATS + ["i32"]:
                for shape, dim in [([3, 5], 1), ([3, 5], 0), ([], 0), ([2, 0], 1), ([2, 3, 4], -1)]:
                    self.add(op, "nn", [("self", self.tensor(dtype, shape, "normal")),
                                        ("dim", Arg("int", dim)), ("dtype", NONE)])
                # Rows of all -inf, all NaN, one inf, and a huge spread.
                rows = torch.tensor([[-INF] * 4, [NAN] * 4, [0.0, INF, 1.0, 2.0],
                                     [-1e30, 0.0, 1e30, 5.0]], dtype=torch.float64)
                if dtype in FLOATS:
                    base = rows.to(DTYPES[dtype]).flatten()
                    for dim in [1, 0]:
                        self.add(op, "nn", [("self", T(TensorArg(base, [4, 4], [4, 1]))),
                                            ("dim", Arg("int", dim)), ("dtype", NONE)])
            self.add(op, "nn", [("self", self.tensor("f16", [3, 5], "normal")),
                                ("dim", Arg("int", 1)), ("dtype", Arg("dtype", "f32"))])

    def normalisation(self):
        for dtype in FLOATS:
            for shape, norm in [([3, 8], [8]), ([2, 3, 4], [3, 4]), ([2, 0, 4], [4])]:
                for affine in [True, False]:
                    self.add("layer_norm", "nn", [
                        ("input", self.tensor(dtype, shape, "normal")),
                        ("normalized_shape", Arg("ints", norm)),
                        ("weight", self.tensor(dtype, norm, "normal") if affine else NONE),
                        ("bias", self.tensor(dtype, norm, "normal") if affine else NONE),
                        ("eps", Arg("float", 1e-5))])
                    self.add("rms_norm", "nn", [
                        ("input", self.tensor(dtype, shape, "normal")),
                        ("normalized_shape", Arg("ints", norm)),
                        ("weight", self.tensor(dtype, norm, "normal") if affine else NONE),
                        ("eps", NONE if affine else Arg("float", 1e-6))], torch_fn=rms_norm)
        # Weights of another dtype than the input (PyTorch's CPU takes f32 weights for bf16).
        for dtype, wdtype in [("bf16", "f32"), ("f16", "f32"), ("f32", "f64"), ("f32", "bf16"),
                              ("f64", "f32")]:
            self.add("layer_norm", "nn", [
                ("input", self.tensor(dtype, [3, 8], "normal")),
                ("normalized_shape", Arg("ints", [8])),
                ("weight", self.tensor(wdtype, [8], "normal")),
                ("bias", self.tensor(wdtype, [8], "normal")), ("eps", Arg("float", 1e-5))])
            self.add("rms_norm", "nn", [
                ("input", self.tensor(dtype, [3, 8], "normal")),
                ("normalized_shape", Arg("ints", [8])),
                ("weight", self.tensor(wdtype, [8], "normal")), ("eps", NONE)], torch_fn=rms_norm)

    def linear_algebra(self):
        for dtype in ALL:
            for sa, sb in [([3, 4], [4, 5]), ([4], [4]), ([4], [4, 2]), ([2, 3], [3]),
                           ([2, 1, 3, 4], [5, 4, 2]), ([0, 3], [3, 2]), ([2, 0], [0, 3])]:
                self.add("matmul", "linalg", [("self", self.tensor(dtype, sa, "small_int")),
                                              ("other", self.tensor(dtype, sb, "small_int"))])
            for beta, alpha in [(1, 1), (0, 2), (0.5, -1.5)]:
                self.add("addmm", "linalg", [
                    ("self", self.tensor(dtype, self.rng.choice([[3, 5], [5], []]), "special")),
                    ("mat1", self.tensor(dtype, [3, 4], "small_int")),
                    ("mat2", self.tensor(dtype, [4, 5], "small_int")),
                    ("beta", S(beta)), ("alpha", S(alpha))])
            self.add("linear", "linalg", [("input", self.tensor(dtype, [2, 3, 4], "small_int")),
                                          ("weight", self.tensor(dtype, [5, 4], "small_int")),
                                          ("bias", self.tensor(dtype, [5], "small_int"))])
            self.add("linear", "linalg", [("input", self.tensor(dtype, [3, 4], "small_int")),
                                          ("weight", self.tensor(dtype, [5, 4], "small_int")),
                                          ("bias", NONE)])
        self.add("matmul", "linalg", [("self", self.tensor("f32", [3, 4])),
                                      ("other", self.tensor("f64", [4, 2]))])

    def attention(self):
        for dtype in FLOATS:
            for causal, mask in [(False, None), (True, None), (False, "bool"), (False, "float")]:
                q = self.tensor(dtype, [2, 3, 4], "unit")
                k = self.tensor(dtype, [2, 5, 4], "unit")
                v = self.tensor(dtype, [2, 5, 4], "normal")
                m = NONE
                if mask == "bool":
                    m = self.tensor("bool", [3, 5])
                elif mask == "float":
                    m = self.tensor(dtype, [2, 3, 5], "unit")
                self.add("scaled_dot_product_attention", "nn", [
                    ("query", q), ("key", k), ("value", v), ("attn_mask", m),
                    ("dropout_p", Arg("float", 0.0)), ("is_causal", Arg("bool", causal)),
                    ("scale", NONE)], torch_fn=scaled_dot_product_attention)

    # --- training: gradients, losses and the optimizers' pointwise ops ------------------
    def training(self):
        self.activation_gradients()
        self.softmax_gradients()
        self.mse_losses()
        self.nll_losses()
        self.optimizer_pointwise()

    def exact(self, t):
        """A Tensor argument holding the torch tensor `t` (contiguous), bit for bit."""
        shape = list(t.shape)
        return T(TensorArg(t.detach().flatten().clone(), shape, contiguous_strides(shape)))

    def activation_gradients(self):
        # (grad_output, self or output): equal, broadcast both ways, 0-d, empty.
        shapes = [([3, 4], [3, 4]), ([3, 1], [4]), ([], [5]), ([2, 0], [2, 1]), ([], [])]
        mixed = [("f32", "f64"), ("bf16", "f32"), ("f16", "bf16"), ("i32", "f32"),
                 ("f64", "i64")]
        for dtype in ALL:
            thresholds = [0, 0.5, -1.5, NAN, INF] if dtype in FLOATS else [0, 2, -3, 1.5]
            for sg, ss in shapes:
                self.add("threshold_backward", "training", [
                    ("grad_output", self.tensor(dtype, sg)), ("self", self.tensor(dtype, ss)),
                    ("threshold", S(self.rng.choice(thresholds)))], torch_fn=threshold_backward)
        for a, b in mixed + [("u8", "i8"), ("bool", "i16"), ("i8", "bool")]:
            self.add("threshold_backward", "training", [
                ("grad_output", self.tensor(a, [2, 3])), ("self", self.tensor(b, [3])),
                ("threshold", S(1))], torch_fn=threshold_backward)
        for dtype, threshold in [("i8", 300), ("u8", -1), ("f16", 1e10), ("i32", True)]:
            self.add("threshold_backward", "training", [
                ("grad_output", self.tensor(dtype, [4])), ("self", self.tensor(dtype, [4])),
                ("threshold", S(threshold))], torch_fn=threshold_backward)
        # The gradient is moderate where x varies: the reference computes in double and
        # rounds once, PyTorch in the dtype (f32 for f16), where grad * factor can overflow
        # on the way (grad -3e38 in sigmoid_backward) or the factor round to 0 (inf * 0).
        # Infinite and NaN gradients meet x in (-1, 1), where every factor is moderate.
        # gelu's tanh form keeps |x| below where PyTorch's f32 x**3 overflows (NaN there,
        # the limit in the reference): "normal" values and the tails.
        tails = [-30.0, -10.0, -5.5, -1.0, -1e-8, 0.0, -0.0, 1e-8, 0.5, 5.5, 10.0, 30.0]
        grads = [NAN, INF, -INF, 0.0, -0.0, 1.0, -2.5, 1e-3]
        for op, second in [("gelu_backward", "self"), ("silu_backward", "self"),
                           ("sigmoid_backward", "output"), ("tanh_backward", "output")]:
            kind = "unit" if op in ("sigmoid_backward", "tanh_backward") else "normal"
            forms = [[("approximate", Arg("str", a))] for a in ["none", "tanh"]] \
                if op == "gelu_backward" else [[]]
            torch_fn = gelu_backward if op == "gelu_backward" else None
            for form in forms:
                for dtype in FLOATS:
                    for sg, ss in shapes:
                        self.add(op, "training", [
                            ("grad_output", self.tensor(dtype, sg, "normal")),
                            (second, self.tensor(dtype, ss, kind))] + form, torch_fn)
                    for xs, grad in [(tails, self.tensor(dtype, [len(tails)], "normal")),
                                     (None, self.exact(torch.tensor(grads).to(DTYPES[dtype])))]:
                        x = self.tensor(dtype, [len(grads)], "unit") if xs is None else \
                            self.exact(torch.tensor(xs, dtype=torch.float64).to(DTYPES[dtype]))
                        self.add(op, "training", [("grad_output", grad), (second, x)] + form,
                                 torch_fn)
                for a, b in mixed + [("i32", "i32")]:
                    self.add(op, "training", [("grad_output", self.tensor(a, [2, 3], "normal")),
                                              (second, self.tensor(b, [2, 3], kind))] + form,
                             torch_fn)
                if form and form[0][1].value == "tanh":
                    continue
                for dtype in ["f32", "f64"]:  # NaN, infinities and huge values of x
                    self.add(op, "training", [("grad_output", self.tensor(dtype, [4, 6], "normal")),
                                              (second, self.tensor(dtype, [4, 6]))] + form,
                             torch_fn)

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
                        ("output", self.exact(y)), ("dim", Arg("int", dim)),
                        ("input_dtype", Arg("dtype", dtype))])
                for dim in [1, 0]:
                    y = forward(rows, dim).to(DTYPES[dtype])
                    self.add(op, "training", [
                        ("grad_output", self.tensor(dtype, [4, 4], "normal")),
                        ("output", self.exact(y)), ("dim", Arg("int", dim)),
                        ("input_dtype", Arg("dtype", dtype))])
            # A gradient with NaN and infinities, and dtypes both must refuse.
            y = forward(self.values.tensor("f32", [3, 4], "normal").torch(), 1)
            self.add(op, "training", [("grad_output", self.tensor("f32", [3, 4])),
                                      ("output", self.exact(y)), ("dim", Arg("int", 1)),
                                      ("input_dtype", Arg("dtype", "f32"))])
            for grad, output, input_dtype in [("f32", "f64", "f32"), ("f32", "f32", "f16"),
                                              ("i32", "i32", "i32")]:
                self.add(op, "training", [("grad_output", self.tensor(grad, [3, 4], "normal")),
                                          ("output", self.tensor(output, [3, 4], "unit")),
                                          ("dim", Arg("int", 1)),
                                          ("input_dtype", Arg("dtype", input_dtype))])

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
        self.add("mse_loss", "training", [("self", self.tensor("i64", [2, 3], "normal")),
                                          ("target", self.tensor("i64", [2, 3], "normal")),
                                          ("reduction", Arg("int", 1))])
        self.add("mse_loss_backward", "training", [
            ("grad_output", self.tensor("f32", [3, 4])), ("self", self.tensor("f32", [3, 4])),
            ("target", self.tensor("f32", [4])), ("reduction", Arg("int", 0))])

    def targets(self, rows, classes, ignored=0.25):
        """A Tensor argument of i64 class indices, [rows] (or 0-d where rows is None), each
        in [0, classes) or, with probability `ignored`, -100."""
        n = 1 if rows is None else rows
        values = [-100 if self.rng.random() < ignored else self.rng.randrange(classes)
                  for _ in range(n)]
        return self.exact(torch.tensor(values[0] if rows is None else values, dtype=torch.int64))

    def nll_losses(self):
        # (rows, classes): rows None is a 1-D self (one row) with a 0-d target.
        shapes = [(5, 4), (1, 3), (0, 3), (None, 5)]
        for dtype in FLOATS:
            for rows, classes in shapes:
                shape = [classes] if rows is None else [rows, classes]
                for reduction in [0, 1, 2]:
                    for weighted in [False, True]:
                        self_ = self.tensor(dtype, shape, "normal")
                        target = self.targets(rows, classes)
                        weight = self.tensor(dtype, [classes], "positive") if weighted else NONE
                        common = [("target", target), ("weight", weight),
                                  ("reduction", Arg("int", reduction)),
                                  ("ignore_index", Arg("int", -100))]
                        # A 1-D self's total_weight without reduction: PyTorch 1.13 gives
                        # the row's weight, the reference 0 (as for a 2-D self); left out.
                        if rows is not None or reduction != 0:
                            self.add("nll_loss_forward", "training", [("self", self_)] + common)
                        # PyTorch's own total_weight for the gradient (f16: computed in f32).
                        s, t = self_.torch(), target.torch()
                        w = None if weight.kind == "none" else weight.torch()
                        upcast = dtype == "f16"
                        _, total = torch.ops.aten.nll_loss_forward(
                            s.float() if upcast else s, t,
                            w.float() if upcast and w is not None else w, reduction, -100)
                        grad_shape = [rows] if reduction == 0 and rows is not None else []
                        self.add("nll_loss_backward", "training", [
                            ("grad_output", self.tensor(dtype, grad_shape, "normal")),
                            ("self", self_)] + common +
                            [("total_weight", self.exact(total.to(DTYPES[dtype])))])
                        for op in ["nll_loss", "cross_entropy_loss"]:
                            args = [("self", self.tensor(dtype, shape, "normal"))] + common
                            if op == "cross_entropy_loss":
                                args.append(("label_smoothing", Arg("float", 0.0)))
                            self.add(op, "training", args)
            # Every row ignored; ignore_index a real class; NaN and infinities in self.
            for reduction in [0, 1, 2]:
                for op in ["nll_loss_forward", "nll_loss", "cross_entropy_loss"]:
                    extra = [("label_smoothing", Arg("float", 0.0))] \
                        if op == "cross_entropy_loss" else []
                    self.add(op, "training", [
                        ("self", self.tensor(dtype, [3, 4], "normal")),
                        ("target", self.exact(torch.tensor([-100, -100, -100]))),
                        ("weight", NONE), ("reduction", Arg("int", reduction)),
                        ("ignore_index", Arg("int", -100))] + extra)
                    self.add(op, "training", [
                        ("self", self.tensor(dtype, [6, 4])),
                        ("target", self.exact(torch.tensor([1, 0, 3, 1, 2, 1]))),
                        ("weight", self.tensor(dtype, [4], "positive")),
                        ("reduction", Arg("int", reduction)),
                        ("ignore_index", Arg("int", 1))] + extra)
        # What both must refuse: a class out of range, an i32 target, a weight of another dtype.
        for target, weight in [(torch.tensor([0, 4, 1]), NONE),
                               (torch.tensor([0, 2, 1], dtype=torch.int32), NONE),
                               (torch.tensor([0, 2, 1]), self.tensor("f64", [4], "positive"))]:
            for op in ["nll_loss_forward", "nll_loss"]:
                self.add(op, "training", [
                    ("self", self.tensor("f32", [3, 4], "normal")), ("target", self.exact(target)),
                    ("weight", weight), ("reduction", Arg("int", 1)),
                    ("ignore_index", Arg("int", -100))])

    def optimizer_pointwise(self):
        """addcmul, addcdiv, lerp.Scalar and zero_."""
        triples = [([3, 4], [3, 4], [3, 4]), ([3, 1], [1, 4], [4]), ([], [5], []),
                   ([2, 0], [2, 1], [0]), ([], [], [])]
        for op in ["addcmul", "addcdiv"]:
            for dtype in ALL:
                values = [1, 0.5, -2, 1 / 3, 1e-3] if dtype in FLOATS else [1, 2, -3]
                # f16/bf16 round each step in the reference, PyTorch once from f32: moderate
                # values, where an intermediate neither overflows nor underflows.
                kind = "normal" if dtype in ("f16", "bf16") else "special"
                for s0, s1, s2 in triples:
                    self.add(op, "training", [
                        ("self", self.tensor(dtype, s0, kind)),
                        ("tensor1", self.tensor(dtype, s1, kind)),
                        ("tensor2", self.tensor(dtype, s2, "nonzero" if op == "addcdiv" else kind)),
                        ("value", S(self.rng.choice(values)))])
            for dtype in ["f32", "f64"]:  # a zero divisor, NaN and infinities everywhere
                self.add(op, "training", [
                    ("self", self.tensor(dtype, [12])), ("tensor1", self.tensor(dtype, [12])),
                    ("tensor2", self.tensor(dtype, [12])), ("value", S(-0.5))])
            for types in [("i32", "i64", "u8"), ("i8", "f32", "i8"), ("u8", "i16", "i16")]:
                self.add(op, "training", [
                    ("self", self.tensor(types[0], [2, 3])),
                    ("tensor1", self.tensor(types[1], [2, 3])),
                    ("tensor2", self.tensor(types[2], [3], "nonzero")), ("value", S(2))])
        # PyTorch 1.13 computes self + w (end - self) for every w < 0.5, the reference for
        # |w| < 0.5: no weight of -0.5 or below here (with an infinite end the two differ).
        weights = [0, 0.25, 0.5, 0.75, 1, -0.25, 2, 1 / 3, 1e-3, NAN]
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
        for a, b in [("f32", "f64"), ("i32", "i32"), ("f16", "f32")]:
            self.add("lerp.Scalar", "training", [("self", self.tensor(a, [3])),
                                                 ("end", self.tensor(b, [3])),
                                                 ("weight", S(0.5))])
        for dtype in ALL:
            for shape in [[2, 3], [], [0]]:
                self.add("zero_", "training", [("self", self.tensor(dtype, shape))])


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


def rms_norm(input, normalized_shape, weight, eps):
    """PyTorch 2.x's rms_norm (1.13 has none): f16/bf16 computed in f32; eps None means the
    dtype's epsilon."""
    dtype = input.dtype
    if not dtype.is_floating_point:
        raise RuntimeError("rms_norm: floating input expected")
    eps = torch.finfo(dtype).eps if eps is None else eps
    x = input.float() if dtype in (torch.float16, torch.bfloat16) else input
    dims = list(range(-len(normalized_shape), 0))
    y = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps)
    if weight is not None and weight.dtype != dtype:
        return y.to(dtype) * weight  # PyTorch 2.x promotes with a weight of another dtype
    if weight is not None:
        y = y * (weight.float() if dtype in (torch.float16, torch.bfloat16) else weight)
    return y.to(dtype)


def scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale):
    """PyTorch 2.x's math path of scaled_dot_product_attention (1.13 has none), in float64
    and rounded once; the scale multiplies q @ k^T."""
    dtype = query.dtype
    q, k, v = query.double(), key.double(), value.double()
    scale = 1 / math.sqrt(q.size(-1)) if scale is None else scale
    scores = q @ k.transpose(-2, -1) * scale
    if is_causal:
        n, s = scores.shape[-2:]
        scores = scores.masked_fill(~torch.ones(n, s, dtype=torch.bool).tril(), -INF)
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            scores = scores.masked_fill(~attn_mask, -INF)
        else:
            scores = scores + attn_mask.double()
    return (torch.softmax(scores, -1) @ v).to(dtype)


def all_cases(seed=1301):
    g = Generator(seed)
    for family in [g.unary, g.binary, g.scalar_forms, g.clamp, g.where, g.nan_positions,
                   g.reductions, g.data_movement, g.nn, g.documented_differences, g.training]:
        family()
    for i, case in enumerate(g.cases):
        case.id = f"{case.op}#{i}"
    return g.cases
