"""The deliberate differences between the reference backend and PyTorch 1.13.1's CPU build,
each named as docs/ops.md ("Differences the differential test names") lists it with its
reason. A disagreement is accepted only when one of these explains it; every explained case
is counted under its name, and a name that explains nothing fails the test, so that this
list and docs/ops.md stay true.

Two kinds: `explains_error(case, torch_result, ref_result)` accepts a case where exactly one
side raised; `explains_element(case, output, index, got, want)` accepts one element."""

import math
from dataclasses import dataclass

import torch

from harness import DTYPES, FLOAT_FORMAT, is_negative_zero, ulp


@dataclass
class KnownDifference:
    name: str
    reason: str
    explains_error: object = None
    explains_element: object = None


def _arg(case, name):
    return dict(case.args).get(name)


def _input_at(case, name, out_shape, index):
    """Element `index` (row-major in the output) of the input `name` broadcast to
    `out_shape`, as a Python number."""
    t = _arg(case, name).torch()
    return t.broadcast_to(out_shape).flatten()[index].item()


def _is_empty_input(case):
    return any(a.kind == "tensor" and a.value.torch().numel() == 0 for _, a in case.args)


def _ref_error_code(ref_result):
    return ref_result.split(":")[0] if isinstance(ref_result, str) else None


def _half_dtype(case):
    return next((a.value.dtype for _, a in case.args
                 if a.kind == "tensor" and a.value.dtype in ("f16", "bf16")), None)


def _alpha_product(case, out_shape, index, got, want, dtype):
    if case.op not in ("add.Tensor", "sub.Tensor", "add.Scalar", "sub.Scalar"):
        return False
    alpha = _arg(case, "alpha").value
    if alpha in (1, True) or dtype not in FLOAT_FORMAT:
        return False
    other = _arg(case, "other")
    b = other.value if other.kind == "scalar" else _input_at(case, "other", out_shape, index)
    product = abs(float(alpha) * float(b))
    return abs(got - want) <= ulp(product, dtype) + ulp(want, dtype)


def _alpha_in_half(case, out_shape, index, got, want, dtype):
    if case.op not in ("add.Tensor", "sub.Tensor", "add.Scalar", "sub.Scalar"):
        return False
    alpha = _arg(case, "alpha").value
    if dtype not in ("f16", "bf16") or isinstance(alpha, bool):
        return False
    return torch.tensor(float(alpha)).to(DTYPES[dtype]).item() != float(alpha)


def _gelu_cancellation(case, out_shape, index, got, want, dtype):
    if case.op != "gelu":
        return False
    x = _input_at(case, "self", out_shape, index)
    if not x < 0:
        return False
    # 0.5 x (1 + erf(x / sqrt 2)) and 0.5 x (1 + tanh(u)): erf or tanh rounded to f32 (bf16
    # in PyTorch's bf16 loop) loses up to half an ulp of 1 once it is added to 1.
    eps = {"bf16": 2.0**-8, "f16": 2.0**-11, "f32": 2.0**-24, "f64": 2.0**-53}[dtype]
    return abs(got - want) <= abs(x) * eps + 2 * ulp(want, dtype)


def _sigmoid_underflow(case, out_shape, index, got, want, dtype):
    if case.op != "sigmoid" or want != 0:
        return False
    smallest_normal = math.ldexp(1.0, FLOAT_FORMAT[dtype][1])
    return 0 < got < smallest_normal


def _double_rounding(case, out_shape, index, got, want, dtype):
    if case.op != "copy_" or dtype not in ("f16", "bf16"):
        return False
    if _arg(case, "src").value.dtype not in ("f64", "i64"):
        return False
    src = float(_input_at(case, "src", out_shape, index))
    direct = torch.tensor([src], dtype=torch.float64)
    via_f32 = direct.float().to(torch.float16 if dtype == "f16" else torch.bfloat16)
    # got is the value rounded once; PyTorch's went through f32 and differs by one ulp.
    return via_f32.double().item() == want and abs(got - want) <= ulp(want, dtype)


def _reference_refuses(ops, when):
    """explains_error for a call of `ops` that PyTorch computes and the reference refuses,
    where `when(case, reference_error)` holds."""
    return lambda case, t, r: case.op in ops and isinstance(r, str) and when(case, r)


def _pytorch_refuses(ops, when):
    """explains_error for a call of `ops` that the reference computes and PyTorch refuses,
    where `when(case, pytorch_exception)` holds."""
    return lambda case, t, r: case.op in ops and isinstance(t, Exception) and when(case, t)


def _lone_nan_bound(case, out_shape, index, got, want, dtype):
    if case.op != "clamp":
        return False
    bounds = [_arg(case, n) for n in ("min", "max")]
    given = [b for b in bounds if b.kind != "none"]
    return (len(given) == 1 and isinstance(given[0].value, float) and
            math.isnan(given[0].value) and math.isnan(got))


def _div_mode_half(case, out_shape, index, got, want, dtype):
    mode = _arg(case, "rounding_mode")
    return (case.op.startswith("div.") and mode is not None and mode.kind == "str" and
            dtype in ("f16", "bf16") and abs(got - want) <= 2 * ulp(want, dtype) + 1)


# The ops whose reference sums f16/bf16/f32 products or elements in double.
SUMS_IN_DOUBLE = ("matmul", "addmm", "baddbmm", "linear", "convolution", "convolution_forward",
                  "convolution_backward", "convolution_backward_input",
                  "convolution_backward_weight", "avg_pool2d", "avg_pool2d_backward",
                  "_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward",
                  "max_pool2d_with_indices_backward")


def _product_in_double(case, out_shape, index, got, want, dtype):
    # inf - inf in f32 where the double products stay finite (or the reverse): both sides
    # are non-finite or differ only through an intermediate beyond the dtype's range.
    return (case.op in SUMS_IN_DOUBLE and dtype != "f64" and
            not (math.isfinite(got) and math.isfinite(want)))


def _layer_norm_constant_rows_in_bf16(case, out_shape, index, got, want, dtype):
    # A row of equal values (an input with a stride-0 dim) is normalised to exactly 0 when the
    # mean is taken in f32; PyTorch's bf16 CPU kernel centres with a bf16-rounded mean.
    if case.op != "native_layer_norm" or dtype != "bf16":
        return False
    x = dict(case.args)["input"].value
    return 0 in x.strides


def _zero_sign_of_min_max(case, out_shape, index, got, want, dtype):
    return (case.op in ("maximum", "minimum", "clamp.Tensor", "amax", "amin") and got == 0 and
            want == 0 and is_negative_zero(got) != is_negative_zero(want))


def _hardtanh_backward_nan(case, out_shape, index, got, want, dtype):
    """A NaN self passes the gradient (PyTorch's scalar loop and CUDA kernel); PyTorch 1.13's
    vectorised CPU loop gives 0 there."""
    if case.op != "hardtanh_backward" or want != 0:
        return False
    return math.isnan(_input_at(case, "self", out_shape, index)) and \
        got == _input_at(case, "grad_output", out_shape, index)


def _tie_order(case, out_shape, index, got, want, dtype):
    """sort / topk indices that name equal values of self's line, in another order."""
    if case.op not in ("sort", "topk") or dtype != "i64":
        return False
    t = _arg(case, "self").torch()
    dim = _arg(case, "dim").value % max(t.dim(), 1)
    where = _unravel(index, out_shape)
    where[dim] = int(got)
    a = t[tuple(where)].item()
    where[dim] = int(want)
    b = t[tuple(where)].item()
    return a == b or (a != a and b != b)


def _unravel(index, shape):
    where = []
    for size in reversed(shape):
        where.append(index % size)
        index //= size
    return list(reversed(where))


KNOWN_DIFFERENCES = [
    KnownDifference(
        "half-kernels",
        "PyTorch 1.13's CPU build has no f16 (some ops: bf16) kernel; the reference computes "
        "it, checked against PyTorch's f32 result rounded to the dtype",
        explains_error=lambda case, t, r: (isinstance(t, Exception) and not isinstance(r, str)
                                           and "not implemented for '" in str(t)
                                           and ("Half" in str(t) or "BFloat16" in str(t)))),
    KnownDifference(
        "dtype-errors-on-empty",
        "a dtype an op refuses is refused by the meta rule whatever the shape; PyTorch 1.13 "
        "raises from its kernel, which an empty tensor never reaches",
        explains_error=lambda case, t, r: (not isinstance(t, Exception) and
                                           _ref_error_code(r) == "Type" and _is_empty_input(case))),
    KnownDifference(
        "norm-weight-dtype",
        "rms_norm's weight must have the input's dtype (as layer_norm's in PyTorch 1.13); "
        "PyTorch 2.x's rms_norm multiplies by a weight of another dtype and promotes",
        explains_error=_reference_refuses(
            ("rms_norm",), lambda case, r: (_ref_error_code(r) == "Type"
                                            and _arg(case, "weight").kind == "tensor"
                                            and _arg(case, "weight").value.dtype
                                            != _arg(case, "input").value.dtype))),
    KnownDifference(
        "where-u8-condition",
        "where's condition must be bool; PyTorch 1.13 still takes u8 with a deprecation warning",
        explains_error=_reference_refuses(
            ("where.self",), lambda case, r: _arg(case, "condition").value.dtype == "u8")),
    KnownDifference(
        "masked-fill-mask-dtype",
        "masked_fill's mask must be bool; PyTorch 1.13 still takes u8 with a deprecation warning "
        "and reads a floating mask as all false",
        explains_error=_reference_refuses(
            ("masked_fill.Scalar", "masked_fill.Tensor"),
            lambda case, r: _arg(case, "mask").value.dtype != "bool")),
    KnownDifference(
        "convolution-transposed-output-padding",
        "a transposed convolution's output_padding must be below the stride; PyTorch also takes "
        "it below the dilation, where the output has rows no input reaches",
        explains_error=_reference_refuses(
            ("convolution",), lambda case, r: "output_padding" in r)),
    KnownDifference(
        "convolution-kernel-gaps",
        "convolutions PyTorch 1.13's CPU has no kernel for: integers with dilation "
        "(slow_conv_dilated), and an empty batch with a strided weight (a view error)",
        explains_error=_pytorch_refuses(
            ("convolution", "convolution_forward"),
            lambda case, t: "slow_conv_dilated" in str(t) or "view size is not compatible" in
            str(t))),
    KnownDifference(
        "clamp-bool",
        "clamp refuses bool; PyTorch 1.13 accepts it with one bound (its clamp_min/clamp_max "
        "kernels) and refuses it with two (its clamp kernel)",
        explains_error=_reference_refuses(
            ("clamp", "clamp.Tensor"), lambda case, r: _arg(case, "self").value.dtype == "bool")),
    KnownDifference(
        "fill-tensor-unchecked",
        "fill_.Tensor converts its value as copy_ does (PyTorch's device backends do the same); "
        "PyTorch's CPU reads it with item() and refuses a value out of the dtype's range",
        explains_error=_pytorch_refuses(
            ("fill_.Tensor",), lambda case, t: "without overflow" in str(t))),
    KnownDifference(
        "i64-from-2-63",
        "a double of 2^63 or more never converts to i64 (fill_(2.0**63) is an error); PyTorch's "
        "range check lets exactly 2^63 through into an undefined C++ cast",
        explains_error=_reference_refuses(
            ("fill_.Scalar",), lambda case, r: _arg(case, "value").value == 2.0**63)),
    KnownDifference(
        "arange-nonfinite-step",
        "arange with a non-finite step is an error; PyTorch returns an empty tensor for inf",
        explains_error=_reference_refuses(
            ("arange.start_step",), lambda case, r: (isinstance(_arg(case, "step").value, float)
                                                     and math.isinf(_arg(case, "step").value)))),
    KnownDifference(
        "arange-wide-i64",
        "an i64 arange is counted exactly, so ranges wider than 2^63 work; PyTorch computes "
        "end - start + step in int64, which overflows, and fails or returns an empty tensor",
        explains_error=_pytorch_refuses(
            ("arange.start_step",), lambda case, t: "overflow" in str(t))),
    KnownDifference(
        "index-select-0d-self",
        "index_select of a 0-d self needs an index of exactly one element; PyTorch 1.13 "
        "returns the element whatever the index's length",
        explains_error=_reference_refuses(
            ("index_select",), lambda case, r: _arg(case, "self").value.shape == [])),
    KnownDifference(
        "embedding-padding-idx",
        "embedding validates padding_idx (-1 or a row of weight); ATen ignores its value in the "
        "forward pass (it only changes gradients), so a wrong one goes unnoticed",
        explains_error=_reference_refuses(
            ("embedding",), lambda case, r: _arg(case, "padding_idx").value >= 5)),
    KnownDifference(
        "linear-bias-broadcast",
        "linear's bias may be any tensor that broadcasts to the output, also with a 1-D weight "
        "(input @ weight^T + bias); PyTorch 1.13 folds the input into a 2-D addmm, which "
        "refuses such a bias, and refuses any bias with a 1-D weight",
        explains_error=_pytorch_refuses(("linear",), lambda case, t: True)),
    KnownDifference(
        "clamp-lone-nan-bound",
        "a NaN bound gives NaN; PyTorch 1.13's CPU kernels ignore a NaN bound when it is the "
        "only one given (and give NaN when both are)",
        explains_element=_lone_nan_bound),
    KnownDifference(
        "alpha-product-rounding",
        "a + alpha * b is rounded once; PyTorch rounds alpha * b first in its scalar loop "
        "(f16/bf16: in the dtype) and fuses it in its vector loop",
        explains_element=_alpha_product),
    KnownDifference(
        "alpha-in-half",
        "f16/bf16 add/sub multiply by alpha rounded to f32 (PyTorch's opmath type, as its CUDA "
        "kernels); PyTorch 1.13's CPU rounds alpha to the half dtype (an alpha of 1e-40 is 0)",
        explains_element=_alpha_in_half),
    KnownDifference(
        "f64-to-half-rounds-once",
        "f64 and i64 -> f16/bf16 round once; PyTorch converts through f32 and can round twice",
        explains_element=_double_rounding),
    KnownDifference(
        "gelu-cancellation",
        "gelu(x) = 0.5 x erfc(-x/sqrt 2) (tanh form: x / (1 + exp(-2u))); PyTorch's "
        "0.5 x (1 + erf(x/sqrt 2)) and 0.5 x (1 + tanh(u)) cancel for negative x (its bf16 "
        "loop rounds erf and tanh to bf16 first)",
        explains_element=_gelu_cancellation),
    KnownDifference(
        "sigmoid-underflow",
        "sigmoid keeps a subnormal result; PyTorch's 1 / (1 + exp(-x)) overflows exp and "
        "returns 0",
        explains_element=_sigmoid_underflow),
    KnownDifference(
        "div-mode-half",
        "f16/bf16 trunc and floor division compute in f32 (PyTorch's opmath type) and round "
        "once; PyTorch 1.13's CPU loops compute the quotient (and floor's fmod steps) in the "
        "half dtype, rounding each step, which can move the result by one",
        explains_element=_div_mode_half),
    KnownDifference(
        "product-in-double",
        "matmul, addmm, linear, the convolutions and the average poolings sum their "
        "f16/bf16/f32 products or elements in double and round once; PyTorch accumulates in "
        "f32, where a product or partial sum beyond f32's range is inf (and inf - inf NaN) "
        "although the double sum is finite or -inf",
        explains_element=_product_in_double),
    KnownDifference(
        "layer-norm-bf16-mean",
        "bf16 native_layer_norm centres rows with the mean in f32 (a row of equal values "
        "becomes 0); PyTorch 1.13's bf16 CPU kernel rounds the mean to bf16 first",
        explains_element=_layer_norm_constant_rows_in_bf16),
    KnownDifference(
        "max-min-zero-sign",
        "maximum/minimum (and clamp.Tensor, amax, amin) return +0.0 as the maximum and -0.0 as "
        "the minimum of +-0; PyTorch returns the first operand in its scalar loop and the second "
        "in its vector loop, so its sign depends on the tensor's size",
        explains_element=_zero_sign_of_min_max),
    KnownDifference(
        "hardtanh-backward-nan",
        "hardtanh_backward passes the gradient where self is NaN, as PyTorch's scalar loop and "
        "CUDA kernel; PyTorch 1.13's vectorised CPU loop gives 0 there, so its result depends "
        "on the tensor's size",
        explains_element=_hardtanh_backward_nan),
    KnownDifference(
        "sort-ties",
        "sort (stable=False, the default) and topk give equal elements in index order, as a "
        "stable sort; PyTorch leaves that order unspecified there, and its unstable sort and "
        "partial sort for topk differ from index order on long lines with ties",
        explains_element=_tie_order),
]


def explain_error(case, torch_result, ref_result):
    for d in KNOWN_DIFFERENCES:
        if d.explains_error and d.explains_error(case, torch_result, ref_result):
            return d.name
    return None


def explain_element(case, out_shape, index, got, want, dtype):
    for d in KNOWN_DIFFERENCES:
        if d.explains_element and d.explains_element(case, out_shape, index, got, want, dtype):
            return d.name
    return None
