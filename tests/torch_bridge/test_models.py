"""Forward passes of real torch.nn models through the bridge on every device, against the
same model on torch CPU: an MLP, a causal TransformerEncoderLayer and torchvision's
resnet18, mobilenet_v2 and vit_b_16 (and vit_b_16's training step). The bounds are max abs
errors of f32 outputs (docs/pytorch.md, "Accuracy"); none of them falls back to the CPU
(asserted), and the counts are printed at the end of the run."""
import copy

import pytest
import torch

import backplane.torch as bt
from conftest import record

MLP_BOUND = 1e-5
TRANSFORMER_BOUND = 1e-4
RESNET_BOUND = 1e-3
# vit_b_16's gradients, relative to each parameter's largest (f32, 12 layers of 768 wide).
VIT_GRAD_BOUND = 1e-4


def forward_on(model, inputs, device, **kwargs):
    """(output on `device` copied back, torch CPU output, fallback counts of the device run)."""
    expected = model(*inputs, **kwargs)
    on_device = copy.deepcopy(model).to(device)
    bt.reset_fallback_counts()
    with torch.no_grad():
        got = on_device(*(x.to(device) for x in inputs),
                        **{k: v.to(device) for k, v in kwargs.items()})
    counts = bt.fallback_counts()
    assert got.device == device
    return got.cpu(), expected, counts


def max_error(got, expected):
    assert got.shape == expected.shape and got.dtype == expected.dtype
    return (got - expected).abs().max().item()


def test_mlp(device):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 128), torch.nn.GELU(),
                                torch.nn.Linear(128, 10)).eval()
    with torch.no_grad():
        got, expected, counts = forward_on(model, [torch.randn(16, 64)], device)
    error = max_error(got, expected)
    record("mlp", device, max_abs_error=error, fallbacks=counts)
    assert error <= MLP_BOUND
    assert counts == {}, "every op of the MLP's forward has a Backplane kernel"


def test_transformer_encoder_layer(device):
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                             dropout=0.0, batch_first=True).eval()
    mask = torch.nn.Transformer.generate_square_subsequent_mask(10)
    with torch.no_grad():
        got, expected, counts = forward_on(layer, [torch.randn(2, 10, 64)], device,
                                           src_mask=mask)
    error = max_error(got, expected)
    record("transformer_encoder_layer", device, max_abs_error=error, fallbacks=counts)
    assert error <= TRANSFORMER_BOUND


def test_resnet18(device):
    models = pytest.importorskip("torchvision.models",
                                 reason="torchvision (python3-torchvision) is not installed")
    torch.manual_seed(0)
    model = models.resnet18(weights=None).eval()
    with torch.no_grad():
        got, expected, counts = forward_on(model, [torch.randn(2, 3, 32, 32)], device)
    error = max_error(got, expected)
    record("resnet18", device, max_abs_error=error, fallbacks=counts)
    assert error <= RESNET_BOUND
    assert counts == {}, f"resnet18's forward ran ops on the CPU fallback: {counts}"


def test_mobilenet_v2(device):
    """ReLU6 is hardtanh(0, 6); the depthwise convolutions are grouped convolutions. In train
    mode (batch statistics; the classifier's dropout off): in eval mode the fresh running
    statistics make every batch norm the identity and the outputs vanish (~1e-15)."""
    models = pytest.importorskip("torchvision.models",
                                 reason="torchvision (python3-torchvision) is not installed")
    torch.manual_seed(0)
    model = models.mobilenet_v2(weights=None, num_classes=10, dropout=0.0).train()
    with torch.no_grad():
        got, expected, counts = forward_on(model, [torch.randn(2, 3, 64, 64)], device)
    error = max_error(got, expected)
    record("mobilenet_v2", device, max_abs_error=error, largest=expected.abs().max().item(),
           fallbacks=counts)
    assert error <= RESNET_BOUND
    assert counts == {}, f"mobilenet_v2's forward ran ops on the CPU fallback: {counts}"


def test_vit_b_16(device):
    models = pytest.importorskip("torchvision.models",
                                 reason="torchvision (python3-torchvision) is not installed")
    torch.manual_seed(0)
    model = models.vit_b_16(weights=None, image_size=32, num_classes=10).eval()
    torch.nn.init.normal_(model.heads.head.weight, std=0.02)  # zeros in torchvision's init
    with torch.no_grad():
        got, expected, counts = forward_on(model, [torch.randn(2, 3, 32, 32)], device)
    error = max_error(got, expected)
    record("vit_b_16", device, max_abs_error=error, largest=expected.abs().max().item(),
           fallbacks=counts)
    assert error <= RESNET_BOUND
    assert counts == {}, f"vit_b_16's forward ran ops on the CPU fallback: {counts}"


def test_vit_b_16_training_step(device):
    """One training step of vit_b_16 (its dropout p is 0): the loss and every parameter's
    gradient against torch CPU's, relative to that parameter's largest gradient, with no op
    on the CPU fallback."""
    models = pytest.importorskip("torchvision.models",
                                 reason="torchvision (python3-torchvision) is not installed")
    torch.manual_seed(0)
    model = models.vit_b_16(weights=None, image_size=32, num_classes=10).train()
    torch.nn.init.normal_(model.heads.head.weight, std=0.02)  # zeros in torchvision's init
    inputs, labels = torch.randn(2, 3, 32, 32), torch.tensor([3, 7])
    on_device = copy.deepcopy(model).to(device)
    expected = torch.nn.functional.cross_entropy(model(inputs), labels)
    expected.backward()
    bt.reset_fallback_counts()
    got = torch.nn.functional.cross_entropy(on_device(inputs.to(device)), labels.to(device))
    got.backward()
    counts = bt.fallback_counts()
    worst = max((p.grad.cpu() - q.grad).abs().max().item() / q.grad.abs().max().item()
                for p, q in zip(on_device.parameters(), model.parameters()))
    record("vit_b_16_training_step", device, loss=got.item(), loss_cpu=expected.item(),
           max_grad_rel_error=worst, fallbacks=counts)
    assert counts == {}, f"vit_b_16's training step ran ops on the CPU fallback: {counts}"
    assert abs(got.item() - expected.item()) <= 1e-5 * abs(expected.item())
    assert worst <= VIT_GRAD_BOUND
