"""Every op of Backplane's op set v1 through the PyTorch bridge (backplane.torch), on every
privateuseone device (opencl, cpu, reference), against PyTorch's own CPU kernels.

The cases (op_cases.py has the machinery; elementwise_cases.py, structural_cases.py and
training_op_cases.py the lists) call PyTorch's API as a user would -- functional, out= and
in-place forms, and torch.ops.aten for the overloads Python does not expose -- with seeded
inputs over every dtype, non-contiguous views (transposed, stepped, expanded), broadcasting,
0-d and empty tensors, wrapped Python numbers and special values (NaN, +-inf, -0.0, integer limits). Each result must
match PyTorch's CPU result in dtype, shape and values; where PyTorch's CPU refuses a call, the
bridge must raise too. An out=/in-place call must return the tensor it was given, and no call
may have gone to the CPU fallback through an aten operator that the bridge maps to Backplane.

The case list is built from Backplane's ops: every op in backplane.torch.mapped_ops() must have
cases (and every form it is mapped in), and every other op of the catalog is either reached
through the torch call that leads to it or listed in NOT_MAPPED with the reason.

Deliberate differences are strict xfails naming them (DIFF_* in elementwise_cases.py), so a
change shows.
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

from op_cases import Builder, assert_same, expected, run  # noqa: E402
from elementwise_cases import (binary_cases, clamp_cases, compare_scalar_cases,  # noqa: E402
                               div_mode_cases, pow_scalar_cases, scalar_cases, unary_cases,
                               where_cases)
from structural_cases import (basics_cases, cat_cases, factory_cases,  # noqa: E402
                              indexing_cases, matmul_cases, norm_cases, reduction_cases,
                              softmax_cases, wrong_shape_out_cases)
from training_op_cases import training_cases  # noqa: E402
from v2_op_cases import op_set_v2_cases  # noqa: E402

DEVICES = [f"privateuseone:{i}" for i in range(len(bt.devices()))]

# Catalog ops no aten operator maps to, and where this file covers them.
NOT_MAPPED = {
    "argsort": "CompositeImplicit in torch 1.13: torch.argsort reaches sort "
               "(sort-f32-torch.argsort case)",
    "copy_": "a tensor basic (its own PrivateUse1 kernel): .to(), .cpu() and copy_ cases",
    "fill_.Scalar": "a tensor basic (its own PrivateUse1 kernel): fill_, zero_, full cases",
    "layer_norm": "not an aten primitive in torch 1.13: F.layer_norm decomposes into "
                  "aten::native_layer_norm, which maps (layer_norm cases)",
    "rms_norm": "torch 1.13 has no rms_norm",
    "scaled_dot_product_attention": "torch 1.13 has no scaled_dot_product_attention",
    "zero_": "a tensor basic (the bridge's own PrivateUse1 kernel, over fill_.Scalar): "
             "fill_.Scalar-f32-zero_ case",
    "nll_loss": "CompositeImplicit in torch 1.13: F.nll_loss reaches nll_loss_forward "
                "(nll_loss_forward-f32-F.nll_loss case)",
    "cross_entropy_loss": "CompositeImplicit in torch 1.13: F.cross_entropy reaches "
                          "log_softmax and nll_loss_forward "
                          "(nll_loss_forward-f32-F.cross_entropy case)",
    "where.Scalar": "CompositeImplicit in torch 1.13: torch.where(c, 1.0, 2.0) reaches "
                    "where.self (where.self-*-scalars cases)",
    "where.ScalarSelf": "CompositeImplicit in torch 1.13: reaches where.self "
                        "(where.self-*-scalar-self cases)",
    "where.ScalarOther": "CompositeImplicit in torch 1.13: reaches where.self "
                         "(where.self-*-scalar-other cases)",
    "nonzero_static": "torch 1.13 has no nonzero_static (2.1 adds it); Backplane's primitive "
                      "under nonzero and masked_select, which map (nonzero cases)",
    "one_hot": "CompositeImplicit in torch 1.13: F.one_hot reaches scatter, amax and amin "
               "(scatter.value-i64-F.one_hot case)",
    "convolution_forward": "Backplane's primitive under convolution, which maps (convolution "
                           "cases)",
    "convolution_backward_input": "Backplane's primitive under convolution_backward, which maps "
                                  "(convolution_backward cases)",
    "convolution_backward_weight": "Backplane's primitive under convolution_backward, which "
                                   "maps (convolution_backward cases)",
}


def all_cases():
    b = Builder()
    for build in [unary_cases, binary_cases, div_mode_cases, scalar_cases, compare_scalar_cases,
                  pow_scalar_cases, clamp_cases, where_cases, cat_cases, indexing_cases,
                  reduction_cases, matmul_cases, softmax_cases, factory_cases, basics_cases,
                  wrong_shape_out_cases, norm_cases, training_cases, op_set_v2_cases]:
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
def test_layer_norm_runs_on_the_device(device):
    """F.layer_norm reaches aten::native_layer_norm (torch 1.13 would decompose it into
    native_batch_norm for a PrivateUse1 device without it), which maps to Backplane's
    native_layer_norm: no CPU fallback, and PyTorch's result on the device."""
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(5))
    bt.reset_fallback_counts()
    got = F.layer_norm(x.to(device), (4,))
    assert bt.fallback_counts() == {}
    assert got.device == torch.device(device)
    torch.testing.assert_close(got.cpu(), F.layer_norm(x, (4,)))
