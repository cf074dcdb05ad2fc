// The hand-written part of the op reference (op_reference.hpp): per family of ops, what a
// kernel receives and the edge semantics. The reference backend defines the semantics
// (docs/reference.md has the per-kernel detail; docs/ops.md the differences from PyTorch).
//
// A new op of the catalog goes into the `ops` list of its family here (or into a new
// family); `backplane ops --markdown` fails, naming it, until it does. Then regenerate
// docs/op-reference.md (the docs/op_reference test says how).
#include "op_reference.hpp"

namespace bp::cli {

// check-sizes: table: prose per op family, one entry each; splitting it would scatter the reference
const std::vector<OpFamily>& op_families() {
  static const std::vector<OpFamily> families = {
      {"Copy and dtype conversion",
       {"copy_"},
       R"(`self` is the output: the kernel writes it in place and no output is appended. `src`
keeps its own dtype (the kernel converts) and is expanded (stride 0) to `self`'s shape; both
are on the kernel's device (copies between devices go through the device API, never a
kernel) and may have any strides and byte offset. The kernel's dtype entry is `self`'s
dtype. `self` never has a stride-0 dim of size > 1 (one memory location written twice),
and never partially overlaps `src`.)",
       R"(The conversion rules of every op (the dispatcher converts inputs with `copy_`):
- **float → int**: truncation toward zero. NaN, ±inf and values out of range are undefined
  in PyTorch; the reference gives PyTorch's x86-64 result: i64 and u8 convert through a
  64-bit truncation, i8/i16/i32 through a 32-bit one, where NaN and out-of-range values
  become that width's minimum, then wrap into the target (`nan → i32` is `INT32_MIN`,
  `nan → i8` is 0, `300.0 → i8` is 44, `-300.7 → u8` is 212). Devices whose conversion
  instructions saturate legitimately differ there.
- **int → int** wraps modulo 2^bits (`i16 -129 → i8` is 127, `-1 → u8` is 255).
- **→ bool** is `!= 0`: NaN is true, -0.0 is false. **bool →** gives 0 or 1.
- **→ floating** rounds once to nearest, ties to even, overflowing to ±inf. f64 → f16/bf16
  and i64 → f32/f16/bf16 round once (PyTorch goes through f32 and can round twice).
- **-0.0** stays -0.0 in every floating dtype; NaN stays NaN.)"},
      {"Fill",
       {"fill_.Scalar", "fill_.Tensor"},
       R"(`self` is the output, written in place (any strides, no appended output; a stride-0
dim may make several elements one memory location); the kernel's dtype entry is `self`'s
dtype. `value` arrives as INT, FLOAT or BOOL, as the caller passed it, already checked by
the meta rule to fit `self`'s dtype; the kernel converts it. `fill_.Tensor` is a
composite: its `value` is a 0-d tensor, copied into `self` with `copy_`.)",
       R"(- The value is checked with PyTorch's rules before the kernel runs: outside the dtype's
  finite range is an error (`fill_(300)` on i8, `fill_(65519.99)` on f16, `fill_(-1.0)` on
  u8, NaN into an integer dtype); a float of 2^63 or more never converts to i64.
- An integer into an unsigned dtype may be negative down to `-max` and wraps (`fill_(-1)` on
  u8 is 255); anything nonzero into bool is true; ±inf and NaN are kept by floating dtypes.
- Into a floating dtype the value is rounded once, to nearest even (an i64 value into f32
  too); -0.0 is kept.
- `fill_.Tensor` converts with `copy_`'s rules and no range check (the value stays on the
  device; no meta rule reads device memory).)"},
      {"Factory: arange",
       {"arange.start_step"},
       R"(No tensor input: `start`, `end` and `step` arrive as Scalars, the output is allocated
with the meta rule's size and dtype (`dtype=`, else i64 when all three are integers, else
the default float dtype), on the kernel's device. The kernel's dtype entry is the output's
dtype. The op never falls back to another device.)",
       R"(- Element i is `start + i * step`: in double for floating outputs, rounded once
  (`arange(0, 1, 0.1)` holds `3 * 0.1`, not a running sum); in int64 for integral outputs,
  with `start` and `step` first truncated to int64 (`arange(5, 0, -1.5, dtype=i32)` is
  `[5, 4, 3, 2]`), wrapping into the output (`arange(0, 300, 100, dtype=i8)` is
  `[0, 100, -56]`).
- A non-finite `step` and `dtype=bool` are errors. An i64 result is counted exactly, so
  ranges wider than 2^63 work.)"},
      {"Indexing: cat, index_select, gather",
       {"cat", "index_select", "gather"},
       R"(- **cat**: every tensor converted to the result dtype; legacy 1-D empty tensors (`[0]`)
  that PyTorch skips are removed from the list (one is kept when all are such, so the list
  is never empty); `dim` wrapped.
- **index_select**: `index` is i64 or i32 and not converted; a 0-d `index` is given as `[1]`,
  a 0-d `self` as `[1]` (the output seen as `[1]` too).
- **gather**: `index` is i64 with `self`'s ndim; a 0-d `self` or `index` is given as `[1]`.
- The kernel checks index values and returns `BP_ERR_INDEX` naming the bad index, the dim
  and its size.)",
       R"(- Elements are copied as bytes: NaN payloads and the sign of zero are kept exactly.
- Every index is checked before anything is written; negative indices are out of range
  (as PyTorch's `index_select` and `gather`), so a failing call leaves the output untouched.)"},
      {"Embedding",
       {"embedding"},
       R"(A composite: `index_select(weight, 0, indices.flatten())` viewed as
`indices.shape + [embedding_dim]`. A fused kernel receives `weight`, `indices` (i64 or i32)
and `padding_idx`, validated to be -1 (none) or a row of `weight`.)",
       R"(As `index_select`: rows copied bit for bit, out-of-range indices are an error.
`padding_idx` never changes the result (it only matters for gradients).)"},
      {"Selection: where",
       {"where.self", "where.Scalar", "where.ScalarSelf", "where.ScalarOther"},
       R"(`condition` is bool; `self` and `other` are converted to their common dtype (the
kernel's dtype entry); all three are expanded (stride 0) to the output's shape. The
`.Scalar`, `.ScalarSelf` and `.ScalarOther` overloads are composites over `where.self`, each
Scalar operand a 0-d wrapped-number tensor; a Scalar must fit the result dtype
(`where(c, i8 tensor, 300)` is an error, not 44).)",
       R"(Elements are picked, not computed: NaN payloads and the sign of zero are kept. A u8
`condition` is an error (PyTorch 1.13 still accepts it with a deprecation warning).)"},
      {"Unary ops in the input's dtype",
       {"neg", "abs", "sign", "relu", "floor", "ceil"},
       R"(`self` in its own dtype (the kernel's dtype entry), with the output's shape; both may
be strided. `sign` takes every dtype; the others every dtype but bool (`abs`, `relu`,
`floor` and `ceil` of bool are meta-rule errors).)",
       R"(- Integers wrap: `abs(i8 -128)` is -128, `neg(u8 1)` is 255; `floor` and `ceil` are
  the identity.
- `relu(x)` is `x < 0 ? 0 : x`: NaN stays NaN and -0.0 stays -0.0. `abs(-0.0)` is +0.0,
  `neg(0.0)` is -0.0, `sign(NaN)` is 0 and `sign(-0.0)` is +0.0.
- The sign of zero is compared exactly for these ops.)"},
      {"Unary math functions",
       {"exp", "log", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tanh", "sigmoid", "erf", "gelu",
        "silu"},
       R"(Integral and bool inputs are converted to the default float dtype (f32), so a kernel
sees f16, bf16, f32 or f64, with the output's shape and any strides. `gelu` also receives
`approximate` as a string, `'none'` or `'tanh'`; `gelu` and `silu` of integer or bool
tensors are meta-rule errors. `silu` is a composite (`x * sigmoid(x)`).)",
       R"(- IEEE 754 special values: `log(0)` is -inf, `log(-1)` NaN, `rsqrt(-0.0)` -inf,
  `reciprocal(±0)` ±inf; NaN propagates.
- The reference computes in double and rounds once to the output dtype; PyTorch computes
  f16/bf16 in f32 and uses f32 approximations of about 1 ulp, which the conformance
  tolerances (in ulps, per op and dtype) cover.
- `gelu(approximate='none')` is `0.5 x erfc(-x / sqrt 2)`; `'tanh'` is
  `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`. Both give NaN at -inf, as PyTorch. Any
  other `approximate` string is `BP_ERR_INVALID_ARGUMENT`.)"},
      {"Logical ops",
       {"logical_not", "logical_and", "logical_or"},
       R"(Inputs of `logical_and`/`logical_or` are converted to their common dtype and expanded
to the output's shape; `logical_not` takes `self` in its own dtype. The output is bool.)",
       R"(Nonzero is true, NaN included; -0.0 is false (`logical_not(NaN)` is false,
`logical_not(-0.0)` is true).)"},
      {"Arithmetic: add, sub, mul",
       {"add.Tensor", "add.Scalar", "sub.Tensor", "sub.Scalar", "mul.Tensor", "mul.Scalar"},
       R"(Both inputs are converted to the promoted dtype (PyTorch's rules: 0-d tensors and
wrapped numbers take part with lower priority) and expanded to the output's shape; an
in-place call passes the same view as input and output. `alpha` is a Scalar checked by
the meta rule (a bool alpha only for bool results, no floating alpha for integral
results, and it must fit the dtype). A `.Scalar` overload is a composite: the scalar
becomes a 0-d wrapped-number tensor and the `.Tensor` form runs.)",
       R"(- Integer overflow wraps (`i8 100 + 100` is -56).
- Floating results are computed in double and rounded once: `a + b`, `a - b` and `a * b`
  agree exactly with PyTorch; with `alpha != 1` PyTorch rounds `alpha` to f32 first for
  f16/bf16/f32 (so does the reference) and results may still differ by an ulp.
- bool: `add` is `self or (alpha and other)`, `mul` is `and`, `sub` of bool is an error.
- Signed zeros follow IEEE 754 (`-0.0 + -0.0` is -0.0, `-0.0 + 0.0` is +0.0).)"},
      {"Division",
       {"div.Tensor", "div.Tensor_mode", "div.Scalar", "div.Scalar_mode"},
       R"(`div.Tensor` is true division: integral and bool inputs are converted to the default
float dtype (f32). `div.Tensor_mode` receives `rounding_mode` as a string or None: None is
true division, `'trunc'` and `'floor'` keep the promoted dtype (integers stay integers).
Inputs are expanded to the output's shape. The `.Scalar` overloads are composites over
the `.Tensor` forms with a 0-d wrapped-number tensor.)",
       R"(- Floating division by zero follows IEEE 754 (`x / ±0` is ±inf, `0 / 0` NaN).
- `'trunc'` is `trunc(a / b)`; `'floor'` on floats is Python's floor division
  (`-0.5 // -inf` is 0.0, `0.5 // -inf` is -1, `inf // 2` NaN, `0 // -3` -0.0).
- Integer division by zero is `BP_ERR_INVALID_ARGUMENT` ("ZeroDivisionError"), checked
  before anything is written; `INT_MIN / -1` wraps to `INT_MIN`.
- A bool result of `'trunc'`/`'floor'` is an error. On f16/bf16/f32 the quotient is
  computed in double, so it is never rounded up to the next integer before truncation.)"},
      {"Power",
       {"pow.Tensor_Tensor", "pow.Tensor_Scalar", "pow.Scalar"},
       R"(Inputs are converted to the promoted dtype and expanded to the output's shape; a bool
result is an error. `pow.Tensor_Scalar` is a composite over `pow.Tensor_Tensor` with a 0-d
wrapped-number exponent, converted with PyTorch's checked conversion into an integral or
half-precision result dtype (`pow(i8 tensor, 300)` is an error). `pow.Scalar` is a
composite with the base a wrapped number, converted without a range check (PyTorch:
`pow(2**40, i8 tensor)` is 0).)",
       R"(- Floats: `std::pow` in double, rounded once (`pow(x, 0)` is 1, NaN included).
- Integers: exact powers by squaring, wrapped (`i8 3^5` is -13, `i32 3^20` is -808182895).
  A negative integer exponent tensor gives 1 for base 1, ±1 for base -1 by parity and 0
  otherwise; `pow.Tensor_Scalar` with a negative integer exponent on an integer tensor is
  an error ("Integers to negative integer powers are not allowed").)"},
      {"maximum and minimum",
       {"maximum", "minimum"},
       R"(Inputs are converted to the promoted dtype and expanded to the output's shape.)",
       R"(NaN propagates. Of -0.0 and +0.0, `maximum` returns +0.0 and `minimum` -0.0 (IEEE
754-2019); PyTorch's answer depends on its code path there, so the conformance suite
compares zeros of these ops by value. Integers compare exactly.)"},
      {"Comparisons",
       {"eq.Tensor", "eq.Scalar", "ne.Tensor", "ne.Scalar", "lt.Tensor", "lt.Scalar", "le.Tensor",
        "le.Scalar", "gt.Tensor", "gt.Scalar", "ge.Tensor", "ge.Scalar"},
       R"(Inputs are converted to their common dtype (the kernel's dtype entry) and expanded to
the output's shape; the output is bool. The `.Scalar` overloads are composites over the
`.Tensor` forms with a 0-d wrapped-number tensor.)",
       R"(Floats compare as double and integers exactly (i64 beyond 2^53 too). NaN is unequal to
everything, itself included (`ne` is true); -0.0 equals +0.0.)"},
      {"clamp",
       {"clamp", "clamp.Tensor"},
       R"(A floating `self` keeps its dtype; otherwise the bounds take part in promotion as
wrapped numbers. `self` is converted to that dtype, and `min`/`max` (at least one given)
are checked to fit it by the meta rule and arrive as Scalars (or None); the kernel
converts them. A bool result is an error. `clamp.Tensor` is a composite over `maximum` and
`minimum`: `self`, `min` and `max` promote together (0-d tensors with lower priority) and
broadcast.)",
       R"(`min(max(x, lo), hi)`: `lo > hi` gives `hi`; NaN in `x` stays NaN; a NaN bound gives
NaN (PyTorch 1.13 ignores a lone NaN Scalar bound; a NaN in a bound tensor gives NaN there
too); `clamp(-0.0, min=0.0)` keeps -0.0, and the sign of zero is compared exactly.)"},
      {"Sum, product and mean",
       {"sum.dim_IntList", "prod.dim_int", "prod", "mean.dim"},
       R"(- `dim` is wrapped into `[0, ndim)`; `sum`'s dim list is sorted, unique and explicit
  (`None` and `[]` become every dim); a 0-d input gets `[]`.
- The output is seen with the keepdim shape (the input's ndim, size 1 in each reduced dim)
  whatever the caller's `keepdim`.
- With `dtype=`, `self` is converted to it and the output has it; without, bool and integer
  inputs give an i64 output (the kernel reads the input's dtype and writes i64) and
  floating ones keep their dtype.
- `mean.dim` is a composite: `sum` (in f32 for f16/bf16), divided by the count, converted
  once; it needs a floating input or `dtype=`.
- `prod` (every element) is a composite: `prod.dim_int` over `self` flattened to 1-D (a view
  when its strides allow, else a contiguous copy), viewed as 0-d.)",
       R"(- Each element is cast to the output dtype with `copy_`'s rules, then folded: in double
  for floating outputs, rounded once at the end; in uint64 for integral outputs, wrapped
  (`sum([2^62, 2^62])` is `INT64_MIN`, `prod(i8 [100, 100], dtype=i8)` is 16). For a bool
  output, `sum` is `or` and `prod` is `and`.
- Empty: `sum` is 0, `prod` 1, `mean` NaN (0/0). NaN propagates.
- PyTorch accumulates f16/bf16/f32 in f32; a backend that does the same needs the few ulps
  of tolerance the conformance suite gives these ops.)"},
      {"amax and amin",
       {"amax", "amin"},
       R"(The dim list is sorted, unique and explicit (`[]` means every dim); a 0-d input gets
`[]`. The output is seen with the keepdim shape. The kernel's dtype entry is the input's
dtype, bool included.)",
       R"(A NaN anywhere gives NaN. Of equal extremes the first is kept, so `amax([-0.0, 0.0])`
is -0.0, as PyTorch. Integers compare exactly over the whole i64 range (u8 as unsigned).
An empty reduction is an error of the meta rule.)"},
      {"argmax and argmin",
       {"argmax", "argmin"},
       R"(`dim` is wrapped, or stays None: the kernel then returns the flat row-major index over
the whole (possibly strided) input, its output seen as all-ones of the input's ndim. The
output is i64, seen with the keepdim shape. bool inputs are rejected (PyTorch has no
kernel for them).)",
       R"(The first index of the extreme; a NaN wins (the first NaN). An empty reduction is an
error of the meta rule.)"},
      {"all and any",
       {"all.dim", "any.dim", "all", "any"},
       R"(`dim` is wrapped; the output is seen with the keepdim shape. It is bool, except for a u8
input, which gives u8 (PyTorch 1.13). `all` and `any` without a dim are composites: the
`.dim` form over `self` flattened to 1-D, viewed as 0-d.)",
       R"(Nonzero is true, NaN included; -0.0 is false. Empty: `all` is true, `any` false.)"},
      {"softmax and log_softmax",
       {"softmax.int", "log_softmax.int"},
       R"(Composites, decomposed into reductions and elementwise ops; a plugin may register a
fused kernel, which receives `dim` wrapped and the input converted to `dtype=` when given.
Integral and bool inputs need a floating `dtype=`. f16/bf16 are computed in f32 and
converted once.)",
       R"(A row of all -inf, all NaN or all +inf gives NaN; one finite value among -inf takes all
the mass (1, and 0 for `log_softmax`); NaN in a row makes the row NaN.)"},
      {"Normalisation: layer_norm, native_layer_norm and rms_norm",
       {"layer_norm", "native_layer_norm", "rms_norm"},
       R"(Composites. `weight` (and `bias`) must have exactly `normalized_shape` and the input's
dtype. `rms_norm` with `eps=None` gets `torch.finfo(dtype).eps` written into the argument
by the meta rule (f16 2^-10, bf16 2^-7, f32 2^-23, f64 2^-52), so a fused kernel always
receives a float. f16/bf16 are computed in f32 (the weight applied in f32) and converted
once. `native_layer_norm` (what PyTorch's autograd records) also returns the mean and rstd of
each normalized slice, in input's shape with size 1 in the normalized dims and input's dtype
(as PyTorch's CPU kernel).)",
       R"(Floating inputs only. A NaN in a normalised group makes the whole group NaN.
PyTorch's CUDA kernels also take f32 weights for half inputs; Backplane does not.)"},
      {"Matrix products: matmul, addmm, baddbmm, linear",
       {"matmul", "addmm", "baddbmm", "linear"},
       R"(- **matmul** (primitive): the kernel sees `self` as `[*B, n, k]` and `other` as
  `[*B, k, m]` with identical, already broadcast batch dims (possibly none; batch strides may
  be 0) and the output as `[*B, n, m]`; 1-D operands were unsqueezed by the meta rule.
- **addmm** (composite): a fused kernel receives `self` expanded to `[n, m]`; for integer
  tensors `beta` and `alpha` arrive truncated to integers. **baddbmm** (composite) is the
  same over a batch: `batch1 [b, n, k] @ batch2 [b, k, m]`, `self` expanded to `[b, n, m]`.
- **linear** (composite): `input @ weight^T + bias`; `bias` may be any tensor that
  broadcasts to the output.
- Operands must have one dtype (no promotion); bool is not supported.)",
       R"(- Floating products are summed in double and rounded once; integer products are summed
  in uint64 and wrapped (`i8 100 * 3` is 44). `k == 0` gives zeros.
- `addmm` with `beta == 0` ignores `self`, NaN included; an integer `alpha=2.9` multiplies
  by 2, as PyTorch reads it in the tensor's type.)"},
      {"Attention",
       {"scaled_dot_product_attention"},
       R"(A composite. `query`, `key` and `value` have at least 2 dims and one floating dtype; a
float `attn_mask` has that dtype, a bool mask means True = attend; the mask broadcasts to
the scores `[*B, L, S]` without growing them. `dropout_p` must be 0; `is_causal` with
`attn_mask` is an error. The scale (`1/sqrt(E)` by default) multiplies `q @ k^T`.)",
       R"(The causal mask is aligned to the top-left corner (query `i` attends keys `j <= i`). A
row with every key masked gives NaN, as PyTorch 2.0-2.4.)"},
      {"Activation gradients",
       {"threshold_backward", "gelu_backward", "silu_backward", "sigmoid_backward",
        "tanh_backward"},
       R"(Primitives, called by autograd with the gradient of the forward result and the forward
call's input (`self`) or, for sigmoid and tanh, its output. Both are expanded to their
broadcast shape and converted to their promoted dtype, the output's.
`threshold_backward` takes every dtype but bool and a threshold that must fit it; the
others are floating only. `gelu_backward` receives `approximate` as for `gelu`.)",
       R"(- `threshold_backward` is `self <= threshold ? 0 : grad`, compared in the compute dtype
  (NaN in `self` passes the gradient through).
- `gelu_backward(approximate='tanh')` where tanh has saturated is `grad` (x > 0) or 0:
  PyTorch's f32 kernel gives NaN there once `x^3` overflows (docs/training.md).)"},
      {"Gradients of softmax and layer_norm",
       {"_softmax_backward_data", "_log_softmax_backward_data", "native_layer_norm_backward"},
       R"(Composites: `(grad - sum(grad * y, dim)) * y` and `grad - exp(y) * sum(grad, dim)`, y
being the forward output. `grad_output` and `output` have one shape and one floating dtype,
the result's. As PyTorch's CPU kernels, `input_dtype` is not otherwise read, except that an
f32 gradient with `input_dtype` f16 (CUDA's half_to_float case) is an error.
`native_layer_norm_backward` takes the forward's mean and rstd and returns the gradients of
input (`rstd * (gw - mean(gw) - xhat * mean(gw * xhat))`, `gw = grad * weight`), weight
(`sum(grad * xhat)`) and bias (`sum(grad)`); `output_mask` (a `bool[3]`, an int list of 0
and 1) leaves a gradient undefined where it is false. f16/bf16 compute in f32.)",
       R"(An empty input gives an empty result (and zero weight and bias gradients); NaN in a
row makes the row NaN.)"},
      {"Losses",
       {"mse_loss", "mse_loss_backward", "nll_loss_forward", "nll_loss_backward", "nll_loss",
        "cross_entropy_loss"},
       R"(Composites. `reduction` is 0 (none), 1 (mean) or 2 (sum). `mse_loss` broadcasts `self`
and `target` (promoted, floating); its gradient has the broadcast shape of all three
inputs, which share one dtype, any but bool (integers use the norm truncated, as PyTorch). The nll
ops take `self` `[N, C]` or `[C]` (floating), an i64 `target` `[N]` or 0-d, and an optional
`weight` `[C]` of self's dtype; `nll_loss_forward` also returns `total_weight`, the sum of
the counted rows' weights (0 for `reduction=0` with a 2-D `self`). `cross_entropy_loss` is `nll_loss` of
`log_softmax` over the class dim, for class-index targets without label smoothing.)",
       R"(- A row whose target is `ignore_index` counts for nothing (loss 0, weight 0, gradient
  0); the mean of no counted rows is NaN (0/0), as PyTorch.
- A target outside `[0, C)` is an index error, raised by the gather the composite uses.)"},
      {"Optimizer pointwise ops",
       {"addcmul", "addcdiv", "lerp.Scalar", "zero_"},
       R"(Composites, rounding where PyTorch's CPU kernels round: `self + (value * t1) * t2`,
`self + (value * t1) / t2`, `lerp` as `self + w * (end - self)` for `w < 0.5` and
`end - (end - self) * (1 - w)` otherwise (PyTorch 1.13). Inputs broadcast and are
converted to their promoted dtype; f16/bf16 compute in f32 and round once; `addcdiv` refuses two integral tensors, and a floating `value` with an integral
result is an error. `zero_` fills `self` with 0.)",
       R"(The in-place forms (`addcmul_`, ...) are these ops with `self` as the output.)"},
      {"Writes through indices: index_add, and embedding's gradient",
       {"index_add", "embedding_dense_backward"},
       R"(- **index_add**: `self` and `source` of one dtype and rank (>= 1: 0-d is given as `[1]`),
  `source` with `index.numel()` along `dim` and `self`'s sizes elsewhere (a size-1 dim of
  `source` is expanded with stride 0); `index` i64 or i32, 1-D (0-d given as `[1]`); `alpha`
  as PyTorch reads it for the dtype (truncated for integers, any nonzero value for bool).
- **embedding_dense_backward**: a composite: `index_add(zeros([num_weights, D]), 0,
  indices.flatten(), grad_output rows)`, rows whose index is `padding_idx` zeroed first,
  and each row times 1 / its index's count with `scale_grad_by_freq`. `grad_output` is
  floating, `indices.shape + [D]` (any shape holding one row of D per index).)",
       R"(- Repeated indices add in the index's order, one rounding per add (PyTorch's CPU order):
  every backend gives one element's adds to one thread or work item, so the result is
  deterministic. Integers wrap; bool is `acc || (alpha && src)`.
- Every index is checked; an out-of-range one is `BP_ERR_INDEX` naming it (PyTorch's
  embedding_dense_backward writes out of bounds there).)"},
      {"Masks: masked_fill, tril, triu",
       {"masked_fill.Scalar", "masked_fill.Tensor", "tril", "triu"},
       R"(Composites over `where.self`. `masked_fill`: `mask` is bool and broadcasts with `self`
(the result has their broadcast shape and `self`'s dtype); a Scalar `value` must fit that
dtype (`value` 300 for an i8 tensor is an error; 2.5 for an i32 tensor writes 2), a Tensor
`value` is 0-d and converted as `copy_` converts. `tril`/`triu(self, diagonal)`: `self` has
at least 2 dims; element `[..., i, j]` is kept where `j - i <= diagonal` (tril) or
`>= diagonal` (triu), else 0.)",
       R"(Elements are picked, never computed: NaN payloads and zero signs are kept; the zeros
written are +0.)"},
      {"Statistics: var, std, logsumexp",
       {"var.correction", "std.correction", "logsumexp"},
       R"(Composites over the reductions. `var.correction` is `sum((x - mean(x))^2) / max(0, N -
correction)` over `dim` (None or [] is every dim; `correction` None means 1), `std` its
square root; floating `self` only. `logsumexp(self, dim, keepdim)` is `log(sum(exp(x - m)))
+ m`, `m` the maximum where it is finite (else 0); integral and bool inputs give f32.
f16/bf16 compute in f32 and round once.)",
       R"(- A divisor of 0 gives inf, or NaN for 0/0 (PyTorch warns and does the same); the
  variance of no elements is NaN.
- logsumexp over no elements is -inf; a row holding +inf is +inf, an all -inf row -inf, NaN
  gives NaN.)"},
      {"Scans: cumsum, cumprod",
       {"cumsum", "cumprod"},
       R"(Primitives. The result dtype is `dtype` when given, else i64 for integral and bool inputs,
else `self`'s; `self` is converted to it first (a bool result is an error, as in PyTorch). A
0-d `self` is given as `[1]`, its output seen as `[1]`; `dim` is wrapped.)",
       R"(- Each line along `dim` is accumulated in order and every prefix rounded once into the
  dtype: f32 and f64 accumulate in f64 (PyTorch's CPU accumulator), f16/bf16 in f32 on the
  CPU and GPU backends (the reference in f64), integers in 64 bits, wrapping.
- Every backend gives a line to one thread or work item, so results do not depend on the
  device's thread count.)"},
      {"Selections over one dim: max.dim, min.dim",
       {"max.dim", "min.dim"},
       R"(Composites: `values` from `amax`/`amin` over the one dim, `indices` (i64) from
`argmax`/`argmin` (bool compared as u8). `keepdim` as the reductions; an empty dim is an
error, as in PyTorch.)",
       R"(NaN is the extreme, at its first index; ties give the first index.)"},
      {"Convolution: convolution, convolution_backward and their primitives",
       {"convolution_forward", "convolution_backward_input", "convolution_backward_weight",
        "convolution", "convolution_backward"},
       R"(1-D and 2-D convolution in PyTorch's layout: input [N, C, L] or [N, C, H, W], weight
[O, C / groups, *] ([C, O / groups, *] when transposed), bias [O]; stride, padding,
dilation and output_padding have one entry or one per spatial dim. No dtype promotion: the
operands share one dtype (not bool; the gradients floating). The primitives
`convolution_forward`, `convolution_backward_input` and `convolution_backward_weight` are
what a backend implements: their kernels receive 4-D tensors (a 1-D convolution as H = 1)
and two-entry parameter lists. `convolution` is a composite (transposed: the input
gradient's primitive, then the bias); `convolution_backward` has PyTorch's schema and
leaves a gradient whose `output_mask` entry is false undefined.)",
       R"(- Floating sums are rounded once: the reference sums in double; the CPU runs oneDNN in
  f32 (f16/bf16 widened), or the reference's double loop for non-finite or huge inputs;
  a GPU sums in float (double for f64) in one work item per result element.
- Integers wrap as PyTorch's.
- Transposed convolutions need output_padding below the stride (PyTorch also takes it
  below the dilation).)"},
      {"Pooling: max_pool2d_with_indices, avg_pool2d, _adaptive_avg_pool2d and their gradients",
       {"max_pool2d_with_indices", "max_pool2d_with_indices_backward", "avg_pool2d",
        "avg_pool2d_backward", "_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward"},
       R"(Primitives in PyTorch's schemas over self [C, H, W] or [N, C, H, W], floating dtypes (as
PyTorch 1.13's CPU; f16 too). kernel_size, stride (empty: the kernel size), padding and
dilation take one entry or two; padding is at most half the kernel; ceil_mode lets the last
window reach past the input (not past its left padding). Kernels receive 4-D tensors and
two-entry lists. max pooling's indices are i64 flat positions h * W + w in each plane.)",
       R"(- max: the padding is never chosen; NaN is the maximum (the window's last NaN, as
  PyTorch's CPU); ties give the first element.
- avg: the window's sum divided by divisor_override, or by its size within the padded
  input (count_include_pad) or within the input; a window with no input element gives 0.
- adaptive: output row o averages input rows [floor(o H / OH), ceil((o + 1) H / OH)).
- The gradients gather: each input element sums, in the output's order, the gradients of
  the windows holding it (max: those whose index names it), in double on the reference
  and CPU, so no two threads write one element.)"},
      {"Batch norm: native_batch_norm, native_batch_norm_backward",
       {"native_batch_norm", "native_batch_norm_backward"},
       R"(Composites in PyTorch's schemas over input [N, C, *] (at least 2 dims), floating; weight,
bias, running_mean and running_var are None or [C] of the input's dtype. Training normalises
each channel by its statistics over every other dim and updates running_mean and
running_var in place: (1 - momentum) running + momentum statistic, the variance unbiased.
Evaluation uses the running statistics (which must be given) and returns empty save_mean
and save_invstd. The backward takes save_mean/save_invstd in training, the running
statistics otherwise; a gradient whose mask entry is false is undefined.)",
       R"(f16/bf16 compute in f32 and round once. The mean and the (biased) variance are two
reductions (the variance of the centred values), invstd = rsqrt(var + eps); the running
variance of a single value per channel is inf or NaN, as in PyTorch.)"},
      {"Group norm: native_group_norm, native_group_norm_backward",
       {"native_group_norm", "native_group_norm_backward"},
       R"(Composites in PyTorch's schemas: input [N, C, *] with N, C and HxW (the product of the
other dims) given, floating; `group` divides C. Each sample's channels split into `group`
groups normalised by their own mean and variance, then weight and bias (None or [C]) per
channel; mean and rstd are [N, group]. The backward takes them; a gradient whose mask entry
is false is undefined.)",
       R"(f16/bf16 compute in f32 and round once; rstd = rsqrt(var + eps) with the biased
variance of the centred values.)"},
      {"Hardtanh: hardtanh, hardtanh_backward",
       {"hardtanh", "hardtanh_backward"},
       R"(Composites in PyTorch's schemas. hardtanh is clamp(self, min_val, max_val) in self's dtype
(any but bool; an unsigned self needs limits >= 0); ReLU6 is hardtanh(x, 0, 6).
hardtanh_backward takes floating grad_output and self that broadcast together.)",
       R"(- hardtanh: NaN stays NaN; an integer self with floating limits is clamped in the
  promoted dtype and converted back, as PyTorch's hardtanh_out.
- hardtanh_backward: grad_output where min_val < self < max_val, and where self is NaN (as
  PyTorch 1.13's CPU kernel); 0 elsewhere.)"},
      {"Random numbers: uniform_, normal_, random_, bernoulli_, native_dropout",
       {"uniform_", "normal_", "random_.from", "random_.to", "random_", "bernoulli_.float",
        "bernoulli_.Tensor", "native_dropout", "native_dropout_backward"},
       R"(PyTorch's schemas with `int seed, int offset` (keyword-only) where PyTorch has
`Generator? generator`. `self` is the output, written in place through any strides (never a
stride-0 dim of size > 1). Element i of self in row-major order, whatever its strides, is
computed from the Philox 4x32-10 block at key = seed, counter = offset + i (64 bits,
wrapping) alone: a call uses numel(self) counters. uniform_ and normal_ take floating self;
random_.from any dtype, with from < to checked against the dtype, or to = None. bernoulli_,
random_.to, random_ and native_dropout are composites over them.)",
       R"(Every backend gives the same bits (docs/random.md):
- uniform_: x * (to - from) + from with x = (word0 & (2^d - 1)) / 2^d in float for
  f16/bf16/f32 (d = 11, 8, 24; bounds rounded to the dtype first) and x from 53 bits of
  words 0-1 in double for f64 (PyTorch's CPU transform).
- normal_: Box-Muller in double, mean + std * sqrt(-2 ln u1) cos(2 pi u2), with ln and cos
  by fixed polynomials (libm differs between devices); devices without fp64 refuse it.
- random_.from: (draw % range) + from through int64, the draw word 0 for a range below 2^32
  and words 0-1 otherwise; from = -2^63 with no `to` takes all 64 bits.
- bernoulli_: u < p with u the f32 uniform_ of self's shape at the same position; p outside
  [0, 1] in a tensor is not checked (p >= 1 gives 1, p <= 0 and NaN give 0).
- native_dropout: mask = bernoulli_(1 - p) (bool), output = input * mask * (1 / (1 - p)),
  0 when p = 1; with train false a copy of input and an all-true mask.)"},
      {"Sorting: sort, argsort, topk",
       {"sort.stable", "sort", "argsort", "argsort.stable", "topk"},
       R"(sort.stable is the primitive, in PyTorch's schema: values of self's dtype and i64 indices
of self's shape, each line along dim sorted. Kernels receive self with at least one dim (a
0-d self arrives as [1]). sort (stable=None), argsort, argsort.stable and topk are
composites over it; topk's k is in [0, size(dim)], and its outputs are [..., k, ...].)",
       R"(- The order is stable whatever `stable` says: equal elements keep their index order, and
  -0.0 equals 0.0. PyTorch's unstable sort and its topk leave the order of equal elements
  unspecified.
- NaN is above every number: last in ascending order, first in descending (topk's
  largest).
- topk returns its k in sorted order, also with sorted=False.)"},
      {"Scatter: scatter, scatter_add, scatter_reduce",
       {"scatter.src", "scatter_reduce.two", "scatter.value", "scatter.reduce",
        "scatter.value_reduce", "scatter_add"},
       R"(PyTorch's schemas. scatter.src and scatter_reduce.two are the primitives: out starts as
self, then for every position p of index in row-major order out[..., index[p], ...] (along
dim) takes src[p], or is reduced with it (sum, prod, mean, amax, amin; include_self says
whether self's value takes part). index is i64 with self's number of dims, no larger than src
anywhere and than self outside dim; kernels receive every tensor with >= 1 dim. The value,
"add"/"multiply" and scatter_add forms are composites over them.)",
       R"(- Repeated indices: the last write wins (scatter.src; PyTorch calls the result
  undefined) or the values reduce in index order, each step rounded once in the dtype, as
  PyTorch's CPU; every backend keeps that order (one work item per line of index, no
  atomics).
- amax/amin: NaN wins. mean: floor division for integers; without self and with no index
  naming it, an element keeps self's value. bool: sum and amax are or, prod and amin and.
- An index outside [0, self.size(dim)) is BP_ERR_INDEX naming it.)"},
      {"Data-dependent shapes: nonzero, masked_select, masked_scatter, one_hot",
       {"nonzero_static", "nonzero", "masked_select", "masked_scatter", "one_hot"},
       R"(nonzero_static (PyTorch 2.1's op) is the primitive: out is i64 [size, self.dim()], row r the
coordinates of self's r-th nonzero element in row-major order, rows past the last one
fill_value, nonzeros past size left out. nonzero, masked_select, masked_scatter and one_hot
are composites that read a count (one_hot: the classes' amin and amax) to the host first;
the meta rules of nonzero, masked_select and one_hot (num_classes -1) give that size as
kDataDependentSize (-1). masked_scatter writes source's first elements, in row-major order,
where the mask (broadcast with self) is true: masked_select's gradient.)",
       R"(- NaN is nonzero, -0.0 is zero.
- The masks must be bool (PyTorch also takes u8); self and mask broadcast.
- masked_scatter's source must hold at least as many elements as the mask selects.
- one_hot takes i64 classes in [0, num_classes); num_classes -1 means the largest + 1, and
  below -1 is refused.)"},
      {"Advanced indexing: index, index_put",
       {"index.Tensor", "index_put"},
       R"(PyTorch's schemas, composites. indices (Tensor?[]) has one entry per leading dim of self:
None for a whole dim, an i64 index tensor (they broadcast together to B), or a bool/u8 mask
covering as many dims as it has (its nonzero coordinates). index's result has B in place of
the indexed dims when they are adjacent, else B first and the other dims after; index_put
writes values (broadcast to that shape, self's dtype) there, or adds them (accumulate).)",
       R"(- Repeated positions: index_put writes them in index order, the last write winning
  (PyTorch calls it undefined), or adds them in that order, one rounding each.
- Negative indices wrap; one outside [-size, size) is BP_ERR_INDEX naming the index, the dim
  and its size (checked through one amin/amax read per index tensor).
- A 0-d mask and indices holding only None are refused (PyTorch 1.13 asserts).)"},
  };
  return families;
}

}  // namespace bp::cli
