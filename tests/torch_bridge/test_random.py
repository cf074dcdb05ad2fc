"""Random numbers through the bridge (docs/random.md): PyTorch's random ops on a Backplane
device run Backplane's Philox ops with a seed drawn from PyTorch's CPU generator, so
torch.manual_seed makes them reproducible and every device draws the same values. nn.init
and dropout run on the device (no CPU fallback, asserted), and models with dropout train
like torch CPU when both use the same masks: the device draws each mask (bernoulli_, as
F.dropout does on PrivateUse1) and the CPU run replays it.
  - a GPT-style decoder with dropout on its embeddings, attention and MLP, 10 steps;
  - torchvision's mobilenet_v2 (dropout before its classifier; ReLU6 is hardtanh) at
    4x3x64x64 in f64, its first training step's loss and gradients.
"""
import copy
import math

import pytest
import torch
import torch.nn.functional as F

import backplane.torch as bt
from conftest import record, torch_device
from test_training import OPTIMIZERS, TinyGPT, train

REFERENCE = torch_device("reference:0")


def draws(device):
    torch.manual_seed(1234)
    return [torch.rand(5, 7, device=device), torch.randn(64, device=device, dtype=torch.float64),
            torch.randint(-9, 9, (3, 4), device=device),
            torch.empty(6, device=device, dtype=torch.float16).uniform_(-2, 2),
            torch.empty(40, device=device).bernoulli_(0.3)]


def test_manual_seed_reproduces_draws_and_every_device_draws_the_same(device, fresh_counts):
    first, again = [t.cpu() for t in draws(device)], [t.cpu() for t in draws(device)]
    for a, b in zip(first, again):
        assert torch.equal(a, b)
    assert not torch.equal(first[0], torch.rand(5, 7, device=device).cpu()), "the stream moves on"
    for a, b in zip(first, draws(REFERENCE)):
        assert torch.equal(a, b.cpu()), "every device gives the reference's bits"
    assert bt.fallback_counts() == {}


def test_a_cpu_generator_seeds_the_device_draws(device, fresh_counts):
    a = torch.rand(8, device=device, generator=torch.Generator().manual_seed(5)).cpu()
    b = torch.rand(8, device=device, generator=torch.Generator().manual_seed(5)).cpu()
    c = torch.rand(8, device=device, generator=torch.Generator().manual_seed(6)).cpu()
    assert torch.equal(a, b) and not torch.equal(a, c)
    assert bt.fallback_counts() == {}


def test_distributions_on_the_device(device, fresh_counts):
    torch.manual_seed(0)
    u = torch.rand(1 << 16, device=device).cpu().double()
    n = torch.randn(1 << 16, device=device).cpu().double()
    k = torch.randint(0, 10, (1 << 16,), device=device).cpu()
    b = torch.empty(1 << 16, device=device).bernoulli_(0.25).cpu().double()
    sigma = 1 / math.sqrt(1 << 16)
    assert abs(u.mean().item() - 0.5) < 5 * sigma * math.sqrt(1 / 12)
    assert 0.0 <= u.min().item() and u.max().item() < 1.0
    assert abs(n.mean().item()) < 5 * sigma and abs(n.var().item() - 1) < 5 * sigma * math.sqrt(2)
    assert k.min().item() == 0 and k.max().item() == 9
    assert abs(b.mean().item() - 0.25) < 5 * sigma * math.sqrt(0.25 * 0.75)
    assert bt.fallback_counts() == {}


def test_nn_init_runs_on_the_device(device, fresh_counts):
    torch.manual_seed(0)
    layer = torch.nn.Linear(64, 32).to(device)
    with torch.no_grad():
        torch.nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5))
        torch.nn.init.normal_(layer.bias, std=0.02)
        torch.nn.init.xavier_uniform_(layer.weight)
        torch.nn.init.uniform_(layer.bias, -0.1, 0.1)
    assert bt.fallback_counts() == {}
    bound = math.sqrt(6 / (64 + 32))
    assert layer.weight.detach().cpu().abs().max().item() <= bound


def test_dropout_on_the_device_scales_what_it_keeps(device, fresh_counts):
    torch.manual_seed(3)
    x = torch.ones(200, 50, device=device)
    y = F.dropout(x, p=0.2, training=True).cpu()
    kept = y != 0
    assert torch.equal(y[kept], torch.full_like(y[kept], 1.25))
    assert abs(kept.double().mean().item() - 0.8) < 0.02
    assert torch.equal(F.dropout(x, p=0.2, training=False).cpu(), x.cpu())
    out, mask = torch.ops.aten.native_dropout(x, 0.5, True)
    assert mask.dtype == torch.bool and torch.equal(out.cpu(), mask.cpu().float() * 2)
    assert bt.fallback_counts() == {}


class DropoutReplay:
    """F.dropout for a pair of training runs: the device run draws each mask with bernoulli_
    on the device (F.dropout's own way on PrivateUse1) and records it; the CPU run replays
    the masks in the same order."""

    def __init__(self):
        self.masks, self.replaying = [], False

    def __call__(self, input, p=0.5, training=True, inplace=False):
        if not training or p == 0:
            return input
        if self.replaying:
            mask = self.masks.pop(0)
        else:
            mask = torch.empty_like(input).bernoulli_(1 - p)
            self.masks.append(mask.cpu())
        return input * mask / (1 - p)


class DropoutGPT(TinyGPT):
    """TinyGPT with GPT's dropouts: on the embeddings, the attention output and the MLP."""

    def __init__(self, p=0.1):
        super().__init__()
        self.drop = torch.nn.Dropout(p)

    def forward(self, tokens):
        where = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.drop(self.tokens(tokens) + self.positions(where))
        x = x + self.drop(self.attend(self.norm1(x)))
        x = x + self.drop(self.mlp(self.norm2(x)))
        logits = self.head(x)
        return logits.reshape(-1, logits.shape[-1])


def replayed_runs(monkeypatch, run):
    """run(device_or_cpu) on the device with masks drawn there, then on the CPU replaying
    them; returns (device result, CPU result, fallback counts of the device run)."""
    replay = DropoutReplay()
    monkeypatch.setattr(F, "dropout", replay)
    bt.reset_fallback_counts()
    got = run(True)
    counts = bt.fallback_counts()
    replay.replaying = True
    expected = run(False)
    assert not replay.masks, "the CPU run replayed every mask"
    return got, expected, counts


@pytest.mark.parametrize("optimizer_name", sorted(OPTIMIZERS))
def test_gpt_with_dropout_trains_like_cpu(device, optimizer_name, monkeypatch):
    torch.manual_seed(0)
    model = DropoutGPT()
    sequence = torch.randint(0, 40, (2, 13))
    inputs, targets = sequence[:, :-1], sequence[:, 1:].reshape(-1)
    on_device = copy.deepcopy(model).to(device)

    def run(on_the_device):
        m = on_device if on_the_device else model
        x, t = (inputs.to(device), targets.to(device)) if on_the_device else (inputs, targets)
        return train(m, x, t, F.cross_entropy, 10, optimizer_name, False, 1.0)

    got, expected, counts = replayed_runs(monkeypatch, run)
    worst = max(abs(g - e) / abs(e) for g, e in zip(got, expected))
    params = max((p.detach().cpu() - q.detach()).abs().max().item()
                 for p, q in zip(on_device.parameters(), model.parameters()))
    record(f"gpt_dropout_{optimizer_name}_training", device, final_loss=got[-1],
           max_loss_rel_error=worst, max_param_error=params, fallbacks=counts)
    assert counts == {}, f"ops of the training step ran on the CPU fallback: {counts}"
    assert worst <= 1e-4 and params <= 2e-4
    assert got[-1] < got[0]


def test_gpt_with_real_dropout_draws_the_same_on_every_device(device, fresh_counts):
    """No replay: F.dropout itself on the device, seeded by torch.manual_seed, gives the
    reference device's masks, so the losses agree with the reference's run."""
    def losses(dev):
        torch.manual_seed(0)
        model = DropoutGPT(p=0.2).to(dev)
        sequence = torch.randint(0, 40, (2, 13))
        return train(model, sequence[:, :-1].to(dev), sequence[:, 1:].reshape(-1).to(dev),
                     F.cross_entropy, 4, "adamw", False, 1.0)

    got = losses(device)
    assert bt.fallback_counts() == {}
    expected = losses(REFERENCE)
    assert all(abs(g - e) <= 1e-4 * abs(e) for g, e in zip(got, expected)), (got, expected)


def test_mobilenet_v2_training_step_like_cpu(device, monkeypatch):
    """In f64: mobilenet_v2's depthwise convolutions and batch norms amplify f32 rounding so
    much at this size that torch CPU's own f32 gradients are 2% (of each parameter's
    largest) from the f64 ones, and two correct f32 implementations part as far. In f64 the
    implementations' differences stay at rounding level (docs/random.md)."""
    models = pytest.importorskip("torchvision.models")
    torch.manual_seed(0)
    model = models.mobilenet_v2(num_classes=10).double()
    # 4x3x64x64, as resnet18's training test: at 2x3x32x32 the last batch norm normalises 2
    # values per channel.
    inputs, labels = torch.randn(4, 3, 64, 64, dtype=torch.float64), torch.randint(0, 10, (4,))
    on_device = copy.deepcopy(model).to(device)

    def run(on_the_device):
        m = on_device if on_the_device else model
        x, t = (inputs.to(device), labels.to(device)) if on_the_device else (inputs, labels)
        loss = F.cross_entropy(m(x), t)
        loss.backward()
        return loss.item()

    got, expected, counts = replayed_runs(monkeypatch, run)
    # Relative to each parameter's largest gradient, or to a millionth of the model's largest:
    # the biases of the batch norms before each block's projection have a true gradient of 0
    # (the next batch norm cancels them), so both sides give rounding noise (1e-15) there.
    floor = 1e-6 * max(q.grad.abs().max().item() for q in model.parameters())
    worst = max((p.grad.cpu() - q.grad).abs().max().item() / max(q.grad.abs().max().item(), floor)
                for p, q in zip(on_device.parameters(), model.parameters()))
    record("mobilenet_v2_f64_training_step", device, loss=got, loss_cpu=expected,
           max_grad_rel_error=worst, fallbacks=counts)
    assert counts == {}, f"mobilenet_v2's training step ran ops on the CPU fallback: {counts}"
    assert abs(got - expected) <= 1e-12 * abs(expected)
    assert worst <= 1e-8
