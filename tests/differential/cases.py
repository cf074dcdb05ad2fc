"""The seeded cases of the differential test: every op and overload of op set v1, over
every dtype (PyTorch decides which it accepts; where it refuses, the reference must refuse
too), with broadcasting, 0-d and wrapped-number operands, every layout class and special
values. Each generator appends Case objects; `all_cases()` gives them stable ids. The
training op set's group comes from training_cases.py (TrainingCases) and op set v2's from
v2_cases.py (OpSetV2Cases); Generator inherits both and runs them last, in that order."""

import math
import random

import torch

from harness import ALL, DTYPES, FLOATS, NONE, Arg, Case, S, T, TensorArg
from inputs import NAN, INF, Values
from training_cases import TrainingCases
from v2_cases import OpSetV2Cases

UNARY = ["neg", "abs", "sign", "exp", "log", "sqrt", "rsqrt", "reciprocal", "sin", "cos",
         "tanh", "sigmoid", "erf", "relu", "floor", "ceil", "logical_not", "silu"]
BINARY = ["add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "pow.Tensor_Tensor",
          "maximum", "minimum", "eq.Tensor", "ne.Tensor", "lt.Tensor", "le.Tensor", "gt.Tensor",
          "ge.Tensor", "logical_and", "logical_or"]
COMPARE_SCALAR = ["eq.Scalar", "ne.Scalar", "lt.Scalar", "le.Scalar", "gt.Scalar", "ge.Scalar"]
BROADCAST_SHAPES = [([3, 4], [3, 4]), ([3, 1], [1, 4]), ([5], []), ([], [5]), ([2, 0], [2, 1]),
                    ([], []), ([2, 3, 5], [3, 1])]
ELEMENTWISE_SHAPES = [[], [7], [3, 4], [0], [2, 3, 5], [1]]


class Generator(TrainingCases, OpSetV2Cases):
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
            self.add("baddbmm", "linalg", [
                ("self", self.tensor(dtype, self.rng.choice([[2, 3, 5], [5], []]), "special")),
                ("batch1", self.tensor(dtype, [2, 3, 4], "small_int")),
                ("batch2", self.tensor(dtype, [2, 4, 5], "small_int")),
                ("beta", S(0.5 if dtype in FLOATS else 2)), ("alpha", S(-1))])
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
                   g.reductions, g.data_movement, g.nn, g.documented_differences, g.training,
                   g.op_set_v2]:
        family()
    for i, case in enumerate(g.cases):
        case.id = f"{case.op}#{i}"
    return g.cases
