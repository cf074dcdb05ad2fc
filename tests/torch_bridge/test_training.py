"""Training through the bridge: a 2-layer MLP classifier trained for 20 SGD steps on seeded
synthetic data on each device, with PyTorch's autograd over PrivateUse1. The per-step losses
and the final parameters match the same training on torch CPU (docs/pytorch.md,
"Accuracy"); backward ops Backplane lacks run on the CPU fallback and are reported."""
import copy

import torch

import backplane.torch as bt
from conftest import record

STEPS = 20
LOSS_TOLERANCE = 1e-5  # relative, per step
PARAMETER_TOLERANCE = 1e-5  # absolute, after the last step


def make_problem():
    torch.manual_seed(0)
    inputs = torch.randn(64, 16)
    labels = (inputs[:, :4].sum(dim=1) > 0).long() + (inputs[:, 4] > 0.5).long()
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, 3))
    return model, inputs, labels


def train(model, inputs, labels):
    """Per-step losses of SGD (with momentum) on cross-entropy."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(inputs), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def test_mlp_sgd_matches_cpu(device, fresh_counts):
    model, inputs, labels = make_problem()
    on_device = copy.deepcopy(model).to(device)
    expected = train(model, inputs, labels)
    got = train(on_device, inputs.to(device), labels.to(device))
    counts = bt.fallback_counts()
    for step, (g, e) in enumerate(zip(got, expected)):
        assert abs(g - e) <= LOSS_TOLERANCE * abs(e), f"step {step}: {g} vs {e}"
    assert got[-1] < 0.5 * got[0], "the loss falls"
    worst = 0.0
    for (name, p), q in zip(on_device.named_parameters(), model.parameters()):
        assert p.device == device, name
        worst = max(worst, (p.detach().cpu() - q.detach()).abs().max().item())
    record("mlp_sgd_training", device, final_loss=got[-1], loss_cpu=expected[-1],
           max_param_error=worst, fallbacks=counts)
    assert worst <= PARAMETER_TOLERANCE
