"""Every op of Backplane's op set v1 through the PyTorch bridge (backplane.torch), on every
privateuseone device (opencl, cpu, reference), against PyTorch's own CPU kernels.

The cases (op_cases.py has the machinery) call PyTorch's API as a user would -- functional,
out= and in-place forms, and torch.ops.aten for the overloads Python does not expose -- with
seeded inputs over every dtype, non-contiguous views (transposed, stepped, expanded),
broadcasting, 0-d and empty tensors, wrapped Python numbers and special values (NaN, +-inf,
-0.0, integer limits). Each result must match PyTorch's CPU result in dtype, shape and values;
where PyTorch's CPU refuses a call, the bridge must raise too. An out=/in-place call must return
the tensor it was given, and no call may have gone to the CPU fallback through an aten
operator that the bridge maps to Backplane.

The case list is built from Backplane's ops: every op in backplane.torch.mapped_ops() must have
cases (and every form it is mapped in), and every other op of the catalog is either reached
through the torch call that leads to it or listed in NOT_MAPPED with the reason.

Deliberate differences are strict xfails naming them (DIFF_* below), so a change shows.
"""

import pathlib
import re
import warnings

import pytest

torch = pytest.importorskip("torch")
try:
    import backplane.torch as bt
except ImportError as import_error:
    pytest.skip(f"backplane.torch cannot be imported ({import_error}); build the bridge "
                "(bridges/torch) and put <build>/python on PYTHONPATH", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

from op_cases import (ALL, DTYPES, EPS, FLOATS, INF, MATH_TOL, NAN, Arg, Case,  # noqa: E402
                      assert_same, const, expected, out_arg, result_meta, run, tensor,
                      with_out)

aten = torch.ops.aten

DEVICES = [f"privateuseone:{i}" for i in range(len(bt.devices()))]

# Catalog ops no aten operator maps to, and where this file covers them.
NOT_MAPPED = {
    "copy_": "a tensor basic (its own PrivateUse1 kernel): .to(), .cpu() and copy_ cases",
    "fill_.Scalar": "a tensor basic (its own PrivateUse1 kernel): fill_, zero_, full cases",
    "layer_norm": "not an aten primitive in torch 1.13: F.layer_norm decomposes (on a "
                  "PrivateUse1 device into aten::native_batch_norm), which runs on the CPU "
                  "fallback (layer_norm cases)",
    "rms_norm": "torch 1.13 has no rms_norm",
    "scaled_dot_product_attention": "torch 1.13 has no scaled_dot_product_attention",
    "where.Scalar": "CompositeImplicit in torch 1.13: torch.where(c, 1.0, 2.0) reaches "
                    "where.self (where.self-*-scalars cases)",
    "where.ScalarSelf": "CompositeImplicit in torch 1.13: reaches where.self "
                        "(where.self-*-scalar-self cases)",
    "where.ScalarOther": "CompositeImplicit in torch 1.13: reaches where.self "
                         "(where.self-*-scalar-other cases)",
}

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


# --- building the cases ---------------------------------------------------------------------

class Builder:
    """Collects Cases; `t` makes seeded tensor Args (one generator for the whole list, so the
    inputs are fixed as long as the list is built in the same order)."""

    def __init__(self, seed=20240613):
        self.gen = torch.Generator().manual_seed(seed)
        self.cases = []

    def t(self, shape, dtype, kind="normal", layout="contiguous"):
        return tensor(self.gen, shape, dtype, kind, layout)

    def add(self, op, label, call, *args, **options):
        self.cases.append(Case(op, label, call, tuple(args), **options))

    def functional(self, op, label, fn, args, tol="exact", **options):
        self.add(op, label, fn, *args, tol=tol, **options)

    def out(self, op, label, fn, args, tol="exact", layouts=("contiguous", "empty"),
            functional=None, xfail=None, **kwargs):
        """fn(*args, out=o) for each out layout, `o` of the dtype and shape of the CPU result
        of `functional` (default: fn without out=)."""
        meta = result_meta(lambda *a: (functional or fn)(*a, **kwargs), args)
        if meta is None:  # PyTorch refuses: an out of the args' dtype must be refused too
            first = next(a for a in args if isinstance(a, Arg))
            meta = (list(first.base.shape), first.dtype)
        for layout in layouts:
            suffix = "" if layout == "contiguous" else f"-{layout}"
            self.add(op, f"{label}-out{suffix}", with_out(fn, **kwargs), *args,
                     out_arg(self.gen, meta, layout), form="out", written=len(args), tol=tol,
                     xfail=(xfail or {}).get(layout, {}))

    def in_place(self, op, label, fn, args, tol="exact", **options):
        self.add(op, label, fn, *args, form="in-place", written=0, tol=tol, **options)


def method(name):
    """Tensor.name_ as a function (a.add_(b)); torch.ops.aten's where Tensor lacks it."""
    if hasattr(torch.Tensor, name):
        return getattr(torch.Tensor, name)
    return getattr(aten, name)


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


def all_cases():
    b = Builder()
    for build in [unary_cases, binary_cases, div_mode_cases, scalar_cases, compare_scalar_cases,
                  pow_scalar_cases, clamp_cases, where_cases, cat_cases, indexing_cases,
                  reduction_cases, matmul_cases, softmax_cases, factory_cases, basics_cases,
                  wrong_shape_out_cases, norm_cases]:
        build(b)
    ids = [case.id for case in b.cases]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    assert not duplicates, f"duplicate case ids: {duplicates}"
    return b.cases


CASES = all_cases()
MAPPED = bt.mapped_ops()
MAPPED_ATEN = {f"aten::{aten_name}" for aten_name, _, _ in MAPPED}


# --- the tests ------------------------------------------------------------------------------

def params():
    for case in CASES:
        for index, device in enumerate(DEVICES):
            reason = case.xfail.get(index, case.xfail.get("*"))
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            yield pytest.param(case, device, id=f"{case.id}-{device}", marks=marks)


EXPECTED = {}


def cached_expected(case):
    if case.id not in EXPECTED:
        EXPECTED[case.id] = expected(case)
    return EXPECTED[case.id]


def mapped_fallbacks(before):
    """The mapped aten operators that ran on the CPU fallback since `before` was taken."""
    after = bt.fallback_counts()
    return sorted(op for op in MAPPED_ATEN & set(after) if after[op] > before.get(op, 0))


@pytest.mark.parametrize("case, device", list(params()))
def test_op(case, device):
    kind, want = cached_expected(case)
    if case.bridge_raises:
        assert kind == "value", f"PyTorch refuses too: {case.bridge_raises} explains nothing"
    if kind == "error" or case.bridge_raises:
        # PyTorch's CPU refuses (or docs/ops.md names a call Backplane refuses): so must the
        # bridge, whether Backplane refuses or its CPU fallback does.
        accepted = (RuntimeError,) if kind == "value" else (RuntimeError, type(want))
        with pytest.raises(accepted):
            run(case, device)
        return
    before = bt.fallback_counts()
    got = run(case, device)
    assert_same(got, want, case, device)
    assert not mapped_fallbacks(before), "a mapped aten operator ran on the CPU fallback"


def test_every_mapped_op_has_cases():
    """Each Backplane op some aten operator maps to has cases, in each form it is mapped."""
    covered = {(case.op, case.form) for case in CASES}
    missing = sorted({(op, form) for _, op, form in MAPPED} - covered)
    assert not missing, f"mapped (Backplane op, form) without cases: {missing}"


def catalog_ops():
    """The ops of op set v1 as docs/op-reference.md (generated from the catalog) lists them."""
    path = pathlib.Path(__file__).resolve().parents[2] / "docs" / "op-reference.md"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    return set(re.findall(r"^### `([^`]+)`$", path.read_text(), re.MULTILINE))


def test_every_catalog_op_is_covered_or_listed():
    ops = catalog_ops()
    assert len(ops) > 50, "docs/op-reference.md lists too few ops"
    mapped = {op for _, op, _ in MAPPED}
    with_cases = {case.op for case in CASES}
    for op in sorted(ops - mapped):
        assert op in NOT_MAPPED, f"{op} is neither mapped to an aten operator nor listed"
    assert not mapped & set(NOT_MAPPED), "NOT_MAPPED lists a mapped op"
    assert not set(NOT_MAPPED) - ops, "NOT_MAPPED lists an op the catalog lacks"
    for op in ["copy_", "fill_.Scalar", "layer_norm"]:  # reachable although not mapped
        assert op in with_cases


def representative_cases():
    """The first case of each (Backplane op, form) that PyTorch's CPU computes and no bug
    marks."""
    seen, chosen = set(), []
    for case in CASES:
        key = (case.op, case.form)
        if key in seen or case.xfail or case.bridge_raises or case.op in NOT_MAPPED:
            continue
        if cached_expected(case)[0] == "value":
            seen.add(key)
            chosen.append(case)
    return chosen


@pytest.mark.parametrize("device", DEVICES)
def test_mapped_ops_do_not_fall_back(device):
    """For one case of each mapped op and form, the fallback counter stays empty."""
    for case in representative_cases():
        bt.reset_fallback_counts()
        run(case, device)
        counts = bt.fallback_counts()
        assert not MAPPED_ATEN & set(counts), f"{case.id}: {counts}"
    bt.reset_fallback_counts()
    x = torch.ones(3, device=device)
    torch.add(x, x)
    assert "aten::add.Tensor" not in bt.fallback_counts()


@pytest.mark.parametrize("device", DEVICES)
def test_layer_norm_runs_on_the_fallback(device):
    """F.layer_norm reaches aten::native_layer_norm or, as torch 1.13 decomposes it for a
    PrivateUse1 device, aten::native_batch_norm; no Backplane op maps to either: it runs on
    PyTorch's CPU kernels, counted, and still gives PyTorch's result on the device."""
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(5))
    bt.reset_fallback_counts()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the first fallback of an operator warns
        got = F.layer_norm(x.to(device), (4,))
    counted = set(bt.fallback_counts())
    assert counted & {"aten::native_layer_norm", "aten::native_batch_norm"}, counted
    assert not counted & MAPPED_ATEN, counted
    assert got.device == torch.device(device)
    torch.testing.assert_close(got.cpu(), F.layer_norm(x, (4,)))
