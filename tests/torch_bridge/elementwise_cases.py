"""The cases of test_ops.py for the elementwise ops: unary, binary (with broadcasting, mixed
dtypes and wrapped numbers), div's rounding modes, the .Scalar overloads and comparisons with
a number, pow, clamp and where. Each *_cases(b) adds its cases to a Builder (op_cases.py), in a
fixed order: the seeded inputs depend on it.
"""

import torch
import torch.nn.functional as F

from op_cases import (ALL, DTYPES, EPS, FLOATS, INF, MATH_TOL, Arg, const, method,  # noqa: F401
                      tensor, with_out)

aten = torch.ops.aten

# Deliberate differences (docs/pytorch.md, "Deliberate differences from PyTorch"): strict
# xfails, so a change of either side shows.
DIFF_SCALAR_OUT_CAST = {"*": (
    "deliberate difference: aten::div.Scalar_out(i32 tensor, 2, out=i32) raises 'result type f32 "
    "can't be cast to the desired output type i32'; PyTorch's CPU computes the f32 quotient "
    "and copies it into the i32 out (its generated *.Scalar_out wrappers do not check)")}
DIFF_POW_SQRT = {"*": (
    "deliberate difference (docs/ops.md): pow(x, 0.5) and pow(x, -0.5) use std::pow; "
    "PyTorch's CPU computes them as sqrt(x) and rsqrt(x): pow(-inf, 0.5) is inf, PyTorch NaN; "
    "pow(-0.0, -0.5) is inf, PyTorch -inf")}


UNARY_EXACT = {"neg": torch.neg, "abs": torch.abs, "sign": torch.sign, "relu": torch.relu,
               "floor": torch.floor, "ceil": torch.ceil, "logical_not": torch.logical_not}
UNARY_MATH = {"exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt,
              "reciprocal": torch.reciprocal, "sin": torch.sin, "cos": torch.cos,
              "tanh": torch.tanh, "sigmoid": torch.sigmoid, "erf": torch.erf, "silu": F.silu,
              "gelu": F.gelu}
OUT_VIA_ATEN = {"relu", "silu", "gelu"}  # their Python functions take no out=


def gelu_tol(arg):
    """PyTorch's gelu cancels for negative x, up to |x| eps away (bf16: erf rounded to bf16
    first): "gelu-cancellation" in docs/ops.md."""
    dtype = arg.dtype
    finite = arg.base[torch.isfinite(arg.base)].abs().double()
    biggest = finite.max().item() if finite.numel() else 0.0
    rtol, atol = MATH_TOL[dtype]
    return rtol, atol + 2 * EPS[dtype] * biggest * (2 if dtype == torch.bfloat16 else 1)


def unary_cases(b):
    for name, fn in {**UNARY_EXACT, **UNARY_MATH}.items():
        tol = "math" if name in UNARY_MATH else "exact"
        out_fn = getattr(aten, name).out if name in OUT_VIA_ATEN else fn
        for dtype in ALL:
            x = b.t([3, 5], dtype, "special")
            case_tol = gelu_tol(x) if name == "gelu" and dtype in FLOATS else tol
            b.functional(name, dtype, fn, [x], case_tol)
        for layout in ["transposed", "stepped", "expanded"]:
            b.functional(name, f"f32-{layout}", fn, [b.t([4, 3], "f32", "special", layout)], tol)
        b.functional(name, "f32-0d", fn, [b.t([], "f32", "special")], tol)
        b.functional(name, "f32-empty", fn, [b.t([0, 3], "f32")], tol)
        b.functional(name, "i64-0d", fn, [b.t([], "i64")], tol)
        for dtype in ["f32", "i32", "bf16"]:
            b.out(name, dtype, out_fn, [b.t([3, 4], dtype, "special")], tol, functional=fn)
            b.in_place(name, f"{dtype}-inplace", method(name + "_"),
                       [b.t([3, 4], dtype, "special")], tol)
        if name != "gelu":  # PyTorch 1.13's CPU gelu.out leaves a non-contiguous out unwritten
            b.out(name, "f32", out_fn, [b.t([3, 4], "f32", "special")], tol,
                  layouts=["transposed"], functional=fn)
        b.in_place(name, "f32-inplace-stepped", method(name + "_"),
                   [b.t([3, 4], "f32", "special", "stepped")], tol)
    for dtype in FLOATS:
        x = b.t([4, 6], dtype, "special")
        b.functional("gelu", f"{dtype}-tanh", lambda a: F.gelu(a, approximate="tanh"), [x],
                     gelu_tol(x))
    tails = [-30.0, -10.0, -5.5, -1e-8, 0.0, -0.0, 1e-8, 5.5, 10.0, 30.0]
    for dtype in FLOATS:
        x = const(tails, dtype)
        b.functional("gelu", f"{dtype}-tails", F.gelu, [x], gelu_tol(x))
        b.functional("sigmoid", f"{dtype}-tails", torch.sigmoid, [const(tails, dtype)], "math")
    b.add("exp", "f32-out-f64", with_out(torch.exp), b.t([3, 4], "f32"),  # computed in f32
          Arg(torch.zeros(3, 4, dtype=torch.float64)), form="out", written=1,
          tol=MATH_TOL[torch.float32])


BINARY = {"add.Tensor": torch.add, "sub.Tensor": torch.sub, "mul.Tensor": torch.mul,
          "div.Tensor": torch.div, "pow.Tensor_Tensor": torch.pow, "maximum": torch.maximum,
          "minimum": torch.minimum, "eq.Tensor": torch.eq, "ne.Tensor": torch.ne,
          "lt.Tensor": torch.lt, "le.Tensor": torch.le, "gt.Tensor": torch.gt,
          "ge.Tensor": torch.ge, "logical_and": torch.logical_and,
          "logical_or": torch.logical_or}
NO_IN_PLACE = {"maximum", "minimum"}  # aten has no in-place form
# A Python number as `other` reaches these as a wrapped 0-d tensor (the comparisons and pow
# take their .Scalar overloads instead; maximum and logical_* refuse numbers).
WRAPPED_NUMBER = {"add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor"}
MIXED_PAIRS = [("i32", "f16"), ("u8", "i8"), ("bool", "f32"), ("i64", "f64"), ("bf16", "f16"),
               ("f32", "f64"), ("bool", "u8")]


def binary_cases(b):
    for op, fn in BINARY.items():
        second = "small" if op.startswith("pow") else "special"
        tol = "math" if op.startswith("pow") else "exact"
        inplace = None if op in NO_IN_PLACE else method(op.split(".")[0] + "_")

        def pair(shape_a, shape_b, da, db, la="contiguous", lb="contiguous"):
            return [b.t(shape_a, da, "special", la), b.t(shape_b, db, second, lb)]

        for dtype in ALL:
            b.functional(op, dtype, fn, pair([3, 4], [3, 4], dtype, dtype), tol)
        for da, db in MIXED_PAIRS:
            b.functional(op, f"{da}-{db}", fn, pair([3, 4], [3, 4], da, db), tol)
        b.functional(op, "f32-broadcast", fn, pair([3, 1], [1, 4], "f32", "f32"), tol)
        b.functional(op, "f32-views", fn,
                     pair([4, 3], [4, 3], "f32", "f32", "transposed", "stepped"), tol)
        b.functional(op, "f32-expanded", fn,
                     pair([3, 4], [4], "f32", "f32", "expanded"), tol)
        b.functional(op, "f32-0d", fn, pair([], [5], "f32", "f32"), tol)
        b.functional(op, "f32-0d-f64", fn, pair([5], [], "f32", "f64"), tol)
        b.functional(op, "i32-0d-f32", fn, pair([5], [], "i32", "f32"), tol)
        b.functional(op, "f32-both-0d", fn, pair([], [], "f32", "f32"), tol)
        b.functional(op, "f32-empty", fn, pair([0, 4], [4], "f32", "f32"), tol)
        if op in WRAPPED_NUMBER:
            b.functional(op, "f32-scalar", fn, [b.t([3, 4], "f32", "special"), 2.0], tol)
            b.functional(op, "i32-scalar-float", fn, [b.t([3, 4], "i32", "special"), 2.5], tol)
            b.functional(op, "u8-scalar-int", fn, [b.t([3, 4], "u8", "special"), 3], tol)
            b.functional(op, "bf16-scalar-float", fn, [b.t([3, 4], "bf16", "special"), 0.1],
                         tol)
        for dtype in ["f32", "i32"]:
            b.out(op, dtype, fn, pair([3, 4], [4], dtype, dtype), tol)
        b.add(op, "i32-out-f64", with_out(fn), *pair([3, 4], [3, 4], "i32", "i32"),
              Arg(torch.zeros(3, 4, dtype=torch.float64)), form="out", written=2, tol=tol)
        b.out(op, "f32", fn, pair([3, 4], [3, 4], "f32", "f32"), tol, layouts=["transposed"])
        if inplace is None:
            continue
        for dtype in ["f32", "i32", "f16"]:
            b.in_place(op, f"{dtype}-inplace", inplace, pair([3, 4], [4], dtype, dtype), tol)
        b.in_place(op, "f32-inplace-transposed", inplace,
                   pair([4, 3], [3], "f32", "f32", "transposed"), tol)
        b.in_place(op, "i32-inplace-f32", inplace, pair([3, 4], [3, 4], "i32", "f32"), tol)
        b.in_place(op, "f32-inplace-grows", inplace, pair([1, 4], [3, 4], "f32", "f32"), tol)
    for op, fn in [("add.Tensor", torch.add), ("sub.Tensor", torch.sub)]:
        for dtype in ["f32", "i32", "f64", "i8"]:
            args = [b.t([3, 4], dtype, "special"), b.t([3, 4], dtype, "special")]
            b.functional(op, f"{dtype}-alpha", lambda x, y, f=fn: f(x, y, alpha=2), args)
        b.out(op, "f32-alpha", fn, [b.t([3, 4], "f32"), b.t([3, 4], "f32")], alpha=-3)
        b.in_place(op, "f32-inplace-alpha", lambda x, y, f=method(op[:3] + "_"): f(x, y, alpha=2),
                   [b.t([3, 4], "f32"), b.t([3, 4], "f32")])


def div_mode_tol(dtype):
    """f16/bf16 trunc/floor division rounds once here, at each step in PyTorch 1.13's CPU
    loops ("div-mode-half" in docs/ops.md): up to 2 ulps or 1 away."""
    if DTYPES[dtype] in (torch.float16, torch.bfloat16):
        return 8 * EPS[DTYPES[dtype]], 1.0
    return "exact"


def div_mode_cases(b):
    op = "div.Tensor_mode"
    for mode in ["trunc", "floor"]:
        def fn(x, y, out=None, m=mode):
            return torch.div(x, y, rounding_mode=m, out=out)

        def fn_(x, y, m=mode):
            return x.div_(y, rounding_mode=m)

        for dtype in ALL:
            args = [b.t([3, 4], dtype, "special"), b.t([3, 4], dtype, "special")]
            b.functional(op, f"{dtype}-{mode}", fn, args, div_mode_tol(dtype))
        b.functional(op, f"i32-f32-{mode}", fn, [b.t([3, 4], "i32"), b.t([4], "f32", "special")])
        b.functional(op, f"f32-{mode}-views", fn,
                     [b.t([4, 3], "f32", "special", "transposed"), b.t([4, 3], "f32", "nonzero",
                                                                      "stepped")])
        b.functional(op, f"i64-{mode}-scalar", fn, [b.t([3, 4], "i64", "special"), -3])
        b.functional(op, f"f32-{mode}-empty", fn, [b.t([0, 4], "f32"), b.t([4], "f32")])
        b.out(op, f"i32-{mode}", fn, [b.t([3, 4], "i32"), b.t([3, 4], "i32", "nonzero")])
        b.out(op, f"f32-{mode}", fn, [b.t([3, 4], "f32"), b.t([3, 4], "f32", "special")])
        b.in_place(op, f"f32-{mode}-inplace", fn_, [b.t([3, 4], "f32"), b.t([4], "f32")])
        b.in_place(op, f"i32-{mode}-inplace", fn_, [b.t([3, 4], "i32"), b.t([4], "i32",
                                                                            "nonzero")])
    b.functional(op, "f32-none", lambda x, y: torch.div(x, y, rounding_mode=None),
                 [b.t([3, 4], "f32", "special"), b.t([3, 4], "f32", "special")])


SCALAR_OF = {"bool": True, "u8": 3, "i8": -3, "i16": 7, "i32": -5, "i64": 11, "f16": 2.5,
             "bf16": -1.5, "f32": 0.75, "f64": -2.25}
ATEN_SCALAR = ["add", "sub", "mul", "div"]  # C++-only .Scalar overloads: torch.ops.aten


def scalar_cases(b):
    for name in ATEN_SCALAR:
        op = f"{name}.Scalar"
        fn, fn_ = getattr(aten, name).Scalar, getattr(aten, name + "_").Scalar
        for dtype in ALL:
            x = b.t([3, 4], dtype, "special")
            b.functional(op, dtype, fn, [x, SCALAR_OF[dtype]])
            b.functional(op, f"{dtype}-float", fn, [b.t([3, 4], dtype, "special"), 2.5])
        b.functional(op, "f32-0d", fn, [b.t([], "f32", "special"), -0.0])
        b.functional(op, "f32-nan", fn, [b.t([5], "f32", "special"), float("nan")])
        b.functional(op, "i64-transposed", fn, [b.t([3, 4], "i64", "special", "transposed"), 7])
        for dtype in ["f32", "i32"]:
            b.out(op, dtype, getattr(aten, name).Scalar_out, [b.t([3, 4], dtype, "special"), 2],
                  functional=fn)
        b.in_place(op, "f32-inplace", fn_, [b.t([3, 4], "f32", "special"), 2.5])
        b.in_place(op, "i32-inplace", fn_, [b.t([3, 4], "i32", "special"), 2])
        b.in_place(op, "i32-inplace-float", fn_, [b.t([3, 4], "i32"), 2.5])
    for name in ["add", "sub"]:
        fn = getattr(aten, name).Scalar
        b.functional(f"{name}.Scalar", "f32-alpha", lambda x, s, f=fn: f(x, s, alpha=2),
                     [b.t([3, 4], "f32", "special"), 1.5])
        b.functional(f"{name}.Scalar", "i32-alpha", lambda x, s, f=fn: f(x, s, alpha=-3),
                     [b.t([3, 4], "i32", "special"), 4])
    b.add("div.Scalar", "i32-out-i32", with_out(aten.div.Scalar_out), b.t([3, 4], "i32"), 2,
          Arg(torch.zeros(3, 4, dtype=torch.int32)), form="out", written=2,
          xfail=DIFF_SCALAR_OUT_CAST)
    op = "div.Scalar_mode"
    for mode in ["trunc", "floor"]:
        def fn(x, s, m=mode):
            return aten.div.Scalar_mode(x, s, rounding_mode=m)

        for dtype in ALL:
            b.functional(op, f"{dtype}-{mode}", fn, [b.t([3, 4], dtype, "special"),
                                                     SCALAR_OF[dtype]], div_mode_tol(dtype))
        b.functional(op, f"f32-{mode}-zero", fn, [b.t([6], "f32", "special"), 0.0])
        b.out(op, f"f32-{mode}", aten.div.Scalar_mode_out, [b.t([3, 4], "f32"), 2.5],
              functional=aten.div.Scalar_mode, rounding_mode=mode)
        b.in_place(op, f"i32-{mode}-inplace",
                   lambda x, s, m=mode: aten.div_.Scalar_mode(x, s, rounding_mode=m),
                   [b.t([3, 4], "i32", "special"), -2])


COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]


def compare_scalar_cases(b):
    for name in COMPARE:
        op, fn = f"{name}.Scalar", getattr(torch, name)
        for dtype in ALL:
            b.functional(op, dtype, fn, [b.t([3, 4], dtype, "special"), SCALAR_OF[dtype]])
        b.functional(op, "f32-nan", fn, [b.t([3, 4], "f32", "special"), float("nan")])
        b.functional(op, "i8-big", fn, [b.t([3, 4], "i8", "special"), 1000])
        b.functional(op, "i32-float", fn, [b.t([3, 4], "i32", "special"), 0.5])
        b.functional(op, "f32-0d", fn, [b.t([], "f32"), 0.0])
        b.out(op, "f32", fn, [b.t([3, 4], "f32", "special"), 0.5])
        b.in_place(op, "f32-inplace", method(name + "_"), [b.t([3, 4], "f32", "special"), 0.5])
        b.in_place(op, "i32-inplace", method(name + "_"), [b.t([3, 4], "i32", "special"), 2])


def pow_scalar_cases(b):
    op = "pow.Tensor_Scalar"
    for dtype in ALL:
        b.functional(op, dtype, torch.pow, [b.t([3, 4], dtype, "special"), 2], "math")
        b.functional(op, f"{dtype}-half", torch.pow, [b.t([3, 4], dtype), 0.5], "math")
    b.functional(op, "f32-neg", torch.pow, [b.t([3, 4], "f32", "special"), -1.5], "math")
    b.functional(op, "f32-minus-half", torch.pow, [b.t([3, 4], "f32", "positive"), -0.5],
                 "math")
    for exponent in [0.5, -0.5]:
        b.functional(op, f"f32-{exponent}-specials", torch.pow,
                     [const([-INF, -0.0, 4.0], "f32"), exponent], "math", xfail=DIFF_POW_SQRT)
    b.functional(op, "i32-three", torch.pow, [b.t([3, 4], "i32", "small"), 3])
    b.functional(op, "f32-transposed", torch.pow,
                 [b.t([3, 4], "f32", "special", "transposed"), 3], "math")
    b.out(op, "f32", torch.pow, [b.t([3, 4], "f32"), 3], "math")
    b.out(op, "i64", torch.pow, [b.t([3, 4], "i64", "small"), 2])
    # aten::pow_ has no mapping of its own; PyTorch runs it as the mapped pow.*_out
    b.in_place(op, "f32-inplace", torch.Tensor.pow_, [b.t([3, 4], "f32", "special"), 3], "math")
    b.in_place(op, "i32-inplace-float", torch.Tensor.pow_, [b.t([3, 4], "i32"), 0.5], "math")
    op = "pow.Scalar"
    for dtype in ALL:
        b.functional(op, dtype, torch.pow, [2, b.t([3, 4], dtype, "small")], "math")
        b.functional(op, f"{dtype}-float", torch.pow, [2.5, b.t([3, 4], dtype, "small")],
                     "math")
    b.functional(op, "f32-special", torch.pow, [-2.0, b.t([3, 4], "f32", "special")], "math")
    b.out(op, "f32", torch.pow, [3.0, b.t([3, 4], "f32", "small")], "math")
    b.out(op, "i32", torch.pow, [3, b.t([3, 4], "i32", "small")])


def clamp_cases(b):
    bounds = [(-1, 2), (None, 2), (-1, None), (3, -3), (-1.5, 2.5)]
    for dtype in ALL:
        for lo, hi in bounds:
            label = f"{dtype}-{lo}-{hi}".replace("None", "none")
            b.functional("clamp", label, torch.clamp, [b.t([3, 4], dtype, "special"), lo, hi])
    b.functional("clamp", "f32-inf-bounds", torch.clamp,
                 [b.t([3, 4], "f32", "special"), -float("inf"), float("inf")])
    b.functional("clamp", "f32-zero-bounds", torch.clamp, [b.t([3, 4], "f32", "special"),
                                                           0.0, None])
    b.functional("clamp", "f32-transposed", torch.clamp,
                 [b.t([3, 4], "f32", "special", "transposed"), -1, 1])
    b.functional("clamp", "f32-empty", torch.clamp, [b.t([0, 3], "f32"), -1, 1])
    b.out("clamp", "f32", torch.clamp, [b.t([3, 4], "f32", "special"), -1, 1])
    b.out("clamp", "i32", torch.clamp, [b.t([3, 4], "i32", "special"), -1, 1])
    b.in_place("clamp", "f32-inplace", torch.clamp_, [b.t([3, 4], "f32", "special"), -1, 1])
    b.in_place("clamp", "i32-inplace-float", torch.clamp_, [b.t([3, 4], "i32"), -1.5, 2.5])
    op = "clamp.Tensor"
    for dtype in ALL:
        args = [b.t([3, 4], dtype, "special"), b.t([4], dtype), b.t([3, 1], dtype)]
        b.functional(op, dtype, lambda x, lo, hi: torch.clamp(x, min=lo, max=hi), args)
    b.functional(op, "f32-min-only", lambda x, lo: torch.clamp(x, min=lo),
                 [b.t([3, 4], "f32", "special"), b.t([], "f32")])
    b.functional(op, "f32-max-only", lambda x, hi: torch.clamp(x, max=hi),
                 [b.t([3, 4], "f32", "special"), b.t([4], "f32")])
    b.functional(op, "bool-min-only", lambda x, lo: torch.clamp(x, min=lo),
                 [b.t([3, 4], "bool"), b.t([4], "bool")], bridge_raises="clamp-bool")
    b.functional(op, "i32-f32", lambda x, lo, hi: torch.clamp(x, lo, hi),
                 [b.t([3, 4], "i32"), b.t([4], "f32"), b.t([], "f32")])
    b.out(op, "f32", torch.clamp, [b.t([3, 4], "f32", "special"), b.t([4], "f32"),
                                   b.t([3, 1], "f32")])
    b.in_place(op, "f32-inplace", torch.clamp_, [b.t([3, 4], "f32", "special"),
                                                 b.t([4], "f32"), b.t([], "f32")])


def where_cases(b):
    op = "where.self"
    for dtype in ALL:
        b.functional(op, dtype, torch.where, [b.t([3, 4], "bool"), b.t([3, 4], dtype, "special"),
                                              b.t([3, 4], dtype, "special")])
    for da, db in MIXED_PAIRS:
        b.functional(op, f"{da}-{db}", torch.where,
                     [b.t([3, 1], "bool"), b.t([1, 4], da, "special"), b.t([], db, "special")])
    b.functional(op, "f32-views", torch.where,
                 [b.t([4, 3], "bool", layout="transposed"),
                  b.t([4, 3], "f32", "special", "stepped"), b.t([4, 3], "f32", layout="expanded")])
    b.functional(op, "f32-empty", torch.where, [b.t([0, 3], "bool"), b.t([3], "f32"),
                                                b.t([0, 3], "f32")])
    b.functional(op, "f32-0d", torch.where, [b.t([], "bool"), b.t([], "f32"), b.t([], "f32")])
    b.functional(op, "f32-scalar-other", torch.where, [b.t([3, 4], "bool"),
                                                       b.t([3, 4], "f32", "special"), 2.5])
    b.functional(op, "i32-scalar-other", torch.where, [b.t([3, 4], "bool"),
                                                       b.t([3, 4], "i32", "special"), 2.5])
    b.functional(op, "i64-scalar-self", torch.where, [b.t([3, 4], "bool"), 7,
                                                      b.t([4], "i64", "special")])
    b.functional(op, "f32-scalars", lambda c: torch.where(c, 1.0, -0.0), [b.t([5], "bool")])
    b.functional(op, "f32-u8-condition", torch.where,
                 [b.t([3, 4], "u8", "small"), b.t([3, 4], "f32"), b.t([3, 4], "f32")],
                 bridge_raises="where-u8-condition")
    b.out(op, "f32", torch.where, [b.t([3, 4], "bool"), b.t([3, 4], "f32"), b.t([4], "f32")])
    b.out(op, "i16", torch.where, [b.t([3, 4], "bool"), b.t([3, 4], "i16"), b.t([4], "i16")])
