"""The machinery of test_ops.py's cases: seeded calls of PyTorch's API that reach each op of
Backplane's op set v1 through the backplane.torch bridge, how their results are checked against
PyTorch's CPU kernels, and the Builder the case lists (elementwise_cases.py, structural_cases.py)
add them to.

A Case is one call (functional, out=, in-place or mutating) with its arguments. Tensor
arguments are Args: a contiguous CPU tensor that is copied to the device under test and then
viewed there (transposed, sliced with a step, expanded), so the device sees the strides PyTorch
sees on the CPU. `expected(case)` runs the call on the CPU; `run(case, device)` on a
privateuseone device; `assert_same` compares them with the op's tolerance.

Tolerances follow tests/differential/compare.py and docs/ops.md ("Differences the differential
test names"): exact for integers, bool and every op PyTorch computes exactly (selections,
comparisons, the IEEE operations), a few ulps for the transcendental functions and a tolerance
relative to the output's largest magnitude for accumulations (sums, products, matmul, softmax).
Where PyTorch 1.13's CPU build has no f16/bf16 kernel ("half-kernels" in docs/ops.md) the
expectation is its f32 result rounded to the dtype.
"""

import math
from dataclasses import dataclass, field
from typing import Callable

import torch

import backplane.torch as bt

aten = torch.ops.aten

DTYPES = {
    "bool": torch.bool, "u8": torch.uint8, "i8": torch.int8, "i16": torch.int16,
    "i32": torch.int32, "i64": torch.int64, "f16": torch.float16, "bf16": torch.bfloat16,
    "f32": torch.float32, "f64": torch.float64,
}
INTS = ["u8", "i8", "i16", "i32", "i64"]
FLOATS = ["f16", "bf16", "f32", "f64"]
ALL = ["bool"] + INTS + FLOATS
HALVES = (torch.float16, torch.bfloat16)
# Seeded cases (random ops): the seed, and the device whose result they must reproduce.
SEED = 20261206
REFERENCE_DEVICE = f"privateuseone:{bt.devices().index('reference:0')}"
NAN, INF = math.nan, math.inf

# Ops whose float results are copies or selections of input values: the sign of a zero must
# match too. (maximum/minimum/amax/amin pick the sign of a +-0 tie differently from PyTorch,
# "max-min-zero-sign" in docs/ops.md.)
SIGNED_ZERO_OPS = {"neg", "abs", "sign", "relu", "floor", "ceil", "clamp", "cat",
                   "index_select", "gather", "where.self", "embedding", "copy_", "fill_.Scalar",
                   "fill_.Tensor"}
# (rtol, atol) of the transcendental functions: a few ulps of each dtype.
MATH_TOL = {torch.float16: (2e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-4),
            torch.float32: (1e-5, 1e-6), torch.float64: (1e-12, 1e-14)}
# Accumulations: rtol, and atol as this times the largest finite |expected| (at least 1).
ACCUM_TOL = {torch.float16: 4e-3, torch.bfloat16: 3e-2, torch.float32: 1e-5,
             torch.float64: 1e-12}
EPS = {torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8, torch.float32: 2.0**-24,
       torch.float64: 2.0**-53}


# --- inputs ---------------------------------------------------------------------------------

def values(gen, shape, dtype, kind="normal"):
    """Seeded CPU values. kind: normal; special (floats also NaN, +-inf, +-0.0; integers also
    their limits); nonzero; small (0..3, exponents); unit (|x| <= 1.5, for long products);
    positive."""
    dt = DTYPES[dtype]
    n = math.prod(shape)
    if dtype == "bool":
        return (torch.rand(n, generator=gen) < 0.5).reshape(shape)
    if dtype in INTS:
        lo, hi = (0, 4) if kind == "small" else (0, 20) if dtype == "u8" else (-9, 10)
        flat = torch.randint(lo, hi, (n,), generator=gen)
        if kind in ("nonzero", "positive"):
            flat[flat == 0] = 3
        if kind == "special":
            info = torch.iinfo(dt)
            _sprinkle(flat, [info.min, info.max, 0, 1, info.max - 1], gen)
        return flat.to(dt).reshape(shape)
    flat = torch.randn(n, generator=gen, dtype=torch.float64) * 3
    if kind == "unit":
        flat = flat.clamp(-3, 3) / 2
    elif kind == "small":
        flat = flat / 2
    elif kind == "positive":
        flat = flat.abs() + 0.1
    elif kind == "special":
        _sprinkle(flat, [NAN, INF, -INF, -0.0, 0.0, 1.0, -1.0], gen)
    return flat.to(dt).reshape(shape)


def _sprinkle(flat, specials, gen):
    """Writes `specials` at seeded positions of `flat` (as many as fit)."""
    where = torch.randperm(flat.numel(), generator=gen)[:len(specials)]
    for position, value in zip(where.tolist(), specials):
        flat[position] = value


@dataclass
class Arg:
    """A tensor argument: `base` (CPU, contiguous) copied to the device, then `view` applied
    there, so the device sees the same sizes, strides and offset as the CPU."""
    base: torch.Tensor
    view: Callable = None

    @property
    def dtype(self):
        return self.base.dtype

    def on(self, device):
        t = self.base.clone() if device == "cpu" else self.base.to(device)
        return t if self.view is None else self.view(t)


def tensor(gen, shape, dtype, kind="normal", layout="contiguous"):
    """An Arg of seeded values with `shape` seen through `layout`: contiguous, transposed
    (the last two dims), stepped (every second element of the last dim, from an offset) or
    expanded (dim 0 broadcast from size 1)."""
    shape = list(shape)
    if layout == "contiguous":
        return Arg(values(gen, shape, dtype, kind))
    if layout == "transposed":
        base = values(gen, shape[:-2] + [shape[-1], shape[-2]], dtype, kind)
        return Arg(base, lambda t: t.transpose(-1, -2))
    if layout == "stepped":
        base = values(gen, shape[:-1] + [2 * shape[-1] + 1], dtype, kind)
        return Arg(base, lambda t: t[..., 1::2])
    if layout == "expanded":
        base = values(gen, [1] + shape[1:], dtype, kind)
        return Arg(base, lambda t: t.expand(shape))
    raise ValueError(layout)


def const(data, dtype):
    """An Arg holding exactly `data` (nested lists of Python numbers)."""
    return Arg(torch.tensor(data, dtype=torch.float64 if dtype in FLOATS else None)
               .to(DTYPES[dtype]))


# --- cases ----------------------------------------------------------------------------------

@dataclass
class Case:
    """One call that reaches the Backplane op `op`; its test id is "<op>-<label>"."""
    op: str
    label: str
    call: Callable  # call(*materialised args) -> result
    args: tuple  # Args (made on the device under test), lists of Args, or plain values
    form: str = "functional"  # functional, out, in-place or mutating
    tol: object = "exact"  # "exact", "math", "accum" or (rtol, atol)
    written: object = None  # the argument (int) an out=/in-place/mutating call must return;
    # a tuple of them for a call with several outs, which returns them as a tuple
    device_arg: bool = False  # the call also takes device= (factories)
    bridge_raises: str = None  # a docs/ops.md difference: Backplane refuses, PyTorch computes
    xfail: dict = field(default_factory=dict)  # device index (or "*") -> reason
    # A random op (docs/random.md): run after torch.manual_seed(SEED), against the same call
    # on the Backplane reference device (PyTorch's CPU generator draws another stream).
    seeded: bool = False

    @property
    def id(self):
        return f"{self.op}-{self.label}"


def with_out(fn, **kwargs):
    """The call fn(*args, out=last argument)."""
    return lambda *a: fn(*a[:-1], out=a[-1], **kwargs)


def materialise(arg, device, upcast=False):
    if isinstance(arg, Arg):
        t = arg.on(device)
        return t.float() if upcast and t.dtype in HALVES else t
    if isinstance(arg, list):
        return [materialise(a, device, upcast) for a in arg]
    return arg


def run(case, device, upcast=False):
    """The case's result on `device` ("cpu" or "privateuseone:N"). An out=/in-place/mutating
    call must return the very tensor it wrote."""
    args = [materialise(a, device, upcast) for a in case.args]
    kwargs = {"device": torch.device(device)} if case.device_arg else {}
    if case.seeded:
        torch.manual_seed(SEED)
    result = case.call(*args, **kwargs)
    if case.written is not None and not upcast:
        several = isinstance(case.written, tuple)
        written = case.written if several else (case.written,)
        results = tuple(result) if several else (result,)
        assert len(results) == len(written) and \
            all(r is args[i] for r, i in zip(results, written)), \
            f"{case.form} call returned a new tensor, not the one it was given"
    return result


def missing_half_kernel(error):
    text = str(error)
    return "not implemented for '" in text and ("Half" in text or "BFloat16" in text)


def half_dtype(case):
    args = [a for x in case.args for a in (x if isinstance(x, list) else [x])]
    return next((a.dtype for a in args if isinstance(a, Arg) and a.dtype in HALVES), None)


def on_host(result):
    if isinstance(result, (tuple, list)):
        return type(result)(on_host(r) for r in result)
    return result.cpu()


def expected(case):
    """("value", PyTorch's CPU result) or ("error", the exception PyTorch's CPU raised). Where
    PyTorch 1.13's CPU has no f16/bf16 kernel, the value is its f32 result rounded to the
    dtype ("half-kernels" in docs/ops.md). A seeded case's value is the Backplane reference
    device's."""
    try:
        if case.seeded:
            return "value", on_host(run(case, REFERENCE_DEVICE))
        return "value", run(case, "cpu")
    except Exception as error:  # noqa: BLE001 -- any refusal is what the bridge must match
        if not missing_half_kernel(error) or half_dtype(case) is None:
            return "error", error
    try:
        result = run(case, "cpu", upcast=True)
    except Exception as error:  # noqa: BLE001
        return "error", error
    return "value", _round_to(result, half_dtype(case))


def _round_to(result, dtype):
    if isinstance(result, (tuple, list)):
        return type(result)(_round_to(r, dtype) for r in result)
    return result.to(dtype) if result.dtype == torch.float32 else result


# --- comparison -----------------------------------------------------------------------------

def assert_same(got, want, case, device):
    """`got` (on `device`) equals PyTorch's `want` in dtype, shape and values (NaN where
    `want` has NaN), within the case's tolerance."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w, case, device)
        return
    if want is None:  # an output the op leaves undefined (a masked gradient)
        assert got is None, f"got a {type(got).__name__} where PyTorch gives None"
        return
    assert isinstance(got, torch.Tensor), f"got {type(got).__name__}, not a tensor"
    assert got.device == torch.device(device), f"result on {got.device}, not on {device}"
    got = got.cpu()
    assert got.dtype == want.dtype, f"dtype {got.dtype}, PyTorch gives {want.dtype}"
    assert got.shape == want.shape, f"shape {list(got.shape)}, PyTorch gives {list(want.shape)}"
    rtol, atol = tolerance(case, want)
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol, equal_nan=True)
    if want.is_floating_point() and case.op in SIGNED_ZERO_OPS:
        zeros = want == 0
        assert torch.equal(got[zeros].signbit(), want[zeros].signbit()), "sign of zero differs"


def tolerance(case, want):
    """(rtol, atol) for comparing with `want`."""
    if not want.is_floating_point() or case.tol == "exact":
        return 0.0, 0.0
    if isinstance(case.tol, tuple):
        return case.tol
    if case.tol == "math":
        return MATH_TOL[want.dtype]
    finite = want[torch.isfinite(want)].abs()
    scale = max([1.0] + ([finite.max().item()] if finite.numel() else []))
    return ACCUM_TOL[want.dtype], ACCUM_TOL[want.dtype] * scale


def result_meta(fn, args):
    """(shape, dtype) of fn's CPU result for `args`, or None where PyTorch refuses."""
    case = Case("probe", "", fn, tuple(args))
    kind, value = expected(case)
    return (list(value.shape), value.dtype) if kind == "value" else None


def out_arg(gen, meta, layout="contiguous"):
    """An out= tensor for a result of `meta` (shape, dtype): `layout` contiguous or
    transposed (filled with seeded values the call must overwrite), or empty (resized)."""
    shape, dtype = meta
    name = next(k for k, v in DTYPES.items() if v == dtype)
    if layout == "empty":
        return Arg(torch.empty(0, dtype=dtype))
    if layout == "transposed" and len(shape) < 2:
        layout = "contiguous"
    return tensor(gen, shape, name, "normal", layout)


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
