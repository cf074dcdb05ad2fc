"""Training through the bridge: a 2-layer MLP classifier trained for 20 steps on seeded
synthetic data on each device, with PyTorch's autograd over PrivateUse1, by SGD (momentum)
and AdamW, each in its for-loop and its foreach mode. The per-step losses and the final
parameters match the same training on torch CPU (docs/pytorch.md, "Accuracy"), and every op
of the step runs on the device: no CPU fallback (docs/training.md)."""
import copy

import pytest
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


OPTIMIZERS = {
    "sgd": lambda params, foreach: torch.optim.SGD(params, lr=0.1, momentum=0.9,
                                                   foreach=foreach),
    "adamw": lambda params, foreach: torch.optim.AdamW(params, lr=0.01, foreach=foreach),
}


def train(model, inputs, labels, optimizer_name="sgd", foreach=False):
    """Per-step losses of the optimizer on cross-entropy."""
    optimizer = OPTIMIZERS[optimizer_name](model.parameters(), foreach)
    losses = []
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(inputs), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("optimizer_name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("foreach", [False, True], ids=["for_loop", "foreach"])
def test_mlp_training_matches_cpu(device, fresh_counts, optimizer_name, foreach):
    model, inputs, labels = make_problem()
    on_device = copy.deepcopy(model).to(device)
    expected = train(model, inputs, labels, optimizer_name, foreach)
    got = train(on_device, inputs.to(device), labels.to(device), optimizer_name, foreach)
    counts = bt.fallback_counts()
    assert counts == {}, f"ops of the training step ran on the CPU fallback: {counts}"
    for step, (g, e) in enumerate(zip(got, expected)):
        assert abs(g - e) <= LOSS_TOLERANCE * abs(e), f"step {step}: {g} vs {e}"
    assert got[-1] < 0.5 * got[0], "the loss falls"
    worst = 0.0
    for (name, p), q in zip(on_device.named_parameters(), model.parameters()):
        assert p.device == device, name
        worst = max(worst, (p.detach().cpu() - q.detach()).abs().max().item())
    mode = "foreach" if foreach else "for-loop"
    record(f"mlp_{optimizer_name}_{mode}_training", device, final_loss=got[-1],
           loss_cpu=expected[-1],
           max_param_error=worst, fallbacks=counts)
    assert worst <= PARAMETER_TOLERANCE
