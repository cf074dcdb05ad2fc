"""How the differential test compares the reference's outputs with PyTorch's: the tolerance
each op gets (exact wherever PyTorch is exact, signed zeros included where PyTorch's sign is
defined), and the element-wise check that reports each mismatch with its index."""

import math
from dataclasses import dataclass

import torch

from harness import FLOATS, NAME_OF, ulp, is_negative_zero

# Ops whose result is a copy or a selection of input values: bit-exact, the sign of zero
# included. (PyTorch's maximum/minimum pick the sign of a +-0 tie by the loop that ran;
# differences.py names that "max-min-zero-sign".)
SELECTING = {"copy_", "fill_.Scalar", "fill_.Tensor", "cat", "index_select", "gather",
             "where.self", "where.Scalar", "where.ScalarSelf", "where.ScalarOther", "embedding",
             "neg", "abs", "sign", "relu", "floor", "ceil", "clamp", "clamp.Tensor", "maximum",
             "minimum", "amax", "amin", "threshold_backward", "zero_"}
# Correctly rounded on both sides, so exact: IEEE +, -, *, / (f16/bf16 through f32 rounds
# the same as once, since f32 has more than 2p+2 bits), and the counting ops.
ROUNDED_ONCE = {"add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "add.Scalar",
                "sub.Scalar", "mul.Scalar", "div.Scalar", "div.Tensor_mode", "div.Scalar_mode"}
# The random ops against random_cases.py's second implementation of docs/random.md (normal_,
# whose ln and cos there are libm's, takes the default tolerance), and hardtanh's picks.
BITWISE = {"uniform_", "random_.from", "random_.to", "random_", "bernoulli_.float",
           "bernoulli_.Tensor", "native_dropout", "native_dropout_backward", "hardtanh",
           "hardtanh_backward"}
TRANSCENDENTAL = {"exp", "log", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tanh", "sigmoid",
                  "erf", "gelu", "silu", "pow.Tensor_Tensor", "pow.Tensor_Scalar", "pow.Scalar"}
# Relative tolerance (of the largest magnitude in the expected output) of accumulating ops.
ACCUMULATING_RTOL = {"f16": 2e-3, "bf16": 1.6e-2, "f32": 2e-6, "f64": 1e-13}
# native_layer_norm_backward's (and native_group_norm_backward's, the same formula over each
# group) input gradient is rstd times a difference of terms of the
# size of the gradient that cancel (to 0 exactly for a constant gradient): its error is
# relative to |grad| * rstd, which the result does not bound. Ten times the accumulating
# tolerance covers rstd up to ~10 (unit-variance rows), and still catches a dropped term.
CANCELLING_GRADIENTS = {"native_layer_norm_backward": 10, "native_group_norm_backward": 10}


@dataclass
class Tolerance:
    ulps: float = 0
    rtol: float = 0  # times max(1, the largest finite |expected| of the output)
    signed_zeros: bool = False

    def exact(self):
        return self.ulps == 0 and self.rtol == 0


def tolerance(case, dtype):
    if dtype not in FLOATS:
        return Tolerance()
    op = case.op
    if op in SELECTING or op in BITWISE:
        return Tolerance(signed_zeros=True)
    if op.split(".")[0] in ("eq", "ne", "lt", "le", "gt", "ge"):
        return Tolerance()
    if op in ROUNDED_ONCE:
        alpha = dict(case.args).get("alpha")
        if alpha is None or alpha.value in (1, True):
            return Tolerance()
        return Tolerance(ulps=1)  # a + alpha * b: fused in PyTorch's vector loop, not scalar
    if op in TRANSCENDENTAL:
        return Tolerance(ulps=1 if dtype in ("f16", "bf16") else 2)
    if op == "arange.start_step":
        return Tolerance(ulps=1)
    return Tolerance(ulps=1, rtol=ACCUMULATING_RTOL[dtype] * CANCELLING_GRADIENTS.get(op, 1))


def flat_values(t):
    """Python numbers of a tensor in row-major order: ints stay exact, floats become
    doubles (every f16/bf16/f32 value is exactly a double)."""
    if t.dtype.is_floating_point:
        return t.double().flatten().tolist()
    return t.flatten().tolist()


def element_ok(got, want, dtype, tol, scale):
    if dtype not in FLOATS:
        return got == want
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if math.isinf(want) or math.isinf(got):
        return got == want
    if tol.exact():
        if got != want:
            return False
        return not tol.signed_zeros or is_negative_zero(got) == is_negative_zero(want)
    return abs(got - want) <= tol.ulps * ulp(want, dtype) + tol.rtol * scale


def compare_outputs(case, got_list, want_list, excuse):
    """Mismatches of one case: a list of strings. `excuse(case, shape, index, got, want,
    dtype)` returns the name of a known difference that explains an element of an output of
    that shape, or None; explained elements are returned in the second list as
    (name, text)."""
    problems, explained = [], []
    if len(got_list) != len(want_list):
        return [f"{len(got_list)} outputs, PyTorch gives {len(want_list)}"], explained
    for n, (got, want) in enumerate(zip(got_list, want_list)):
        want_dtype = NAME_OF[want.dtype]
        if got.dtype != want.dtype:
            problems.append(f"output {n}: dtype {NAME_OF[got.dtype]}, PyTorch gives {want_dtype}")
            continue
        if list(got.shape) != list(want.shape):
            problems.append(f"output {n}: shape {list(got.shape)}, PyTorch gives "
                            f"{list(want.shape)}")
            continue
        tol = tolerance(case, want_dtype)
        g, w = flat_values(got), flat_values(want)
        finite = [abs(x) for x in w if isinstance(x, float) and math.isfinite(x)]
        scale = max([1.0] + finite)
        for i, (a, b) in enumerate(zip(g, w)):
            if element_ok(a, b, want_dtype, tol, scale):
                continue
            text = f"output {n} element {i}: got {fmt(a)}, PyTorch gives {fmt(b)}"
            name = excuse(case, list(want.shape), i, a, b, want_dtype)
            if name:
                explained.append((name, text))
            else:
                problems.append(text)
    return problems, explained


def fmt(x):
    if isinstance(x, float):
        if x == 0:
            return "-0.0" if is_negative_zero(x) else "0.0"
        return repr(x)
    return str(x)


def upcast_args(case):
    """The case's PyTorch arguments with f16/bf16 tensors in f32 (and a ScalarType argument
    naming f16/bf16, such as _softmax_backward_data's input_dtype, f32): what the expected
    output is computed from when PyTorch 1.13 has no CPU kernel for a half dtype."""
    out = {}
    for name, arg in case.args:
        v = arg.torch()
        if isinstance(v, torch.Tensor) and v.dtype in (torch.float16, torch.bfloat16):
            v = v.float()
        elif arg.kind == "tensors":
            v = [t.float() if t is not None and t.dtype in (torch.float16, torch.bfloat16) else t
                 for t in v]
        elif arg.kind == "dtype" and v in (torch.float16, torch.bfloat16):
            v = torch.float32
        out[name] = v
    return out
