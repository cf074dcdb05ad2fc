"""Advanced indexing through the bridge: x[i], x[:, i], x[i, :, j], x[mask], masked_select
and their gradients (index's is _index_put_impl_ with accumulate, masked_select's is
masked_scatter_) run on the device with no CPU fallback (asserted) and give torch CPU's
values; so do assignments (x[mask] = v, x[i] += v) and a loss that picks each row's target
logit with x[arange(n), target]."""
import pytest
import torch

import backplane.torch as bt


def grads_of(fn, x):
    leaf = x.detach().clone().requires_grad_()
    out = fn(leaf)
    out.backward(torch.linspace(-1, 1, out.numel(), dtype=out.dtype).view(out.shape).to(x.device))
    return out.detach().cpu(), leaf.grad.cpu()


def test_index_and_masked_select_gradients_run_on_the_device(device, fresh_counts):
    torch.manual_seed(7)
    x = torch.randn(5, 6, 4, dtype=torch.float64)
    rows, cols = torch.tensor([4, -1, 0, 4]), torch.tensor([[1], [4], [0]])
    mask = x[..., 0] > 0
    calls = [lambda t, r=rows: t[r], lambda t, r=rows: t[:, r.abs() % 6],
             lambda t, c=cols: t[c, :, c.view(3) % 4], lambda t, m=mask: t[m],
             lambda t, m=mask: torch.masked_select(t, m.unsqueeze(-1).to(t.device))]
    for call in calls:  # the index tensors stay on the CPU, as they may for a CUDA tensor
        want_out, want_grad = grads_of(call, x)
        got_out, got_grad = grads_of(call, x.to(device))
        assert torch.equal(got_out, want_out)
        assert torch.allclose(got_grad, want_grad, rtol=0, atol=1e-15)
    assert bt.fallback_counts() == {}


def test_assignments_through_indices(device, fresh_counts):
    x = torch.arange(24.).view(4, 6)
    d = x.to(device)
    for t in (x, d):
        t[t > 20] = -1.0
        t[torch.tensor([0, 0, 3])] += 2.5  # read, add, write: the last write wins
        t[:, torch.tensor([1, 4])] = torch.tensor([7.0, 8.0], device=t.device)
        t.index_put_((torch.tensor([2, 2]),), torch.ones(6, device=t.device), accumulate=True)
    assert torch.equal(d.cpu(), x)
    assert bt.fallback_counts() == {}


def test_a_loss_of_picked_logits_trains_like_cpu(device, fresh_counts):
    torch.manual_seed(3)
    model = torch.nn.Linear(8, 5).double()
    inputs, target = torch.randn(16, 8, dtype=torch.float64), torch.randint(0, 5, (16,))
    on_device = torch.nn.Linear(8, 5).double().to(device)
    on_device.load_state_dict(model.state_dict())
    for m, x, y in ((model, inputs, target), (on_device, inputs.to(device), target.to(device))):
        logits = m(x).log_softmax(-1)
        loss = -logits[torch.arange(16, device=x.device), y].mean()
        loss.backward()
    assert torch.allclose(on_device.weight.grad.cpu(), model.weight.grad, rtol=1e-12, atol=1e-14)
    assert bt.fallback_counts() == {}


def test_a_bad_index_fails_and_leaves_self_untouched(device, fresh_counts):
    """Functional scatter checks the indices as it writes a new tensor; in place (x.scatter_,
    x.index_put_) every index is checked before anything is written, so x keeps its values."""
    x = torch.arange(12.).view(3, 4).to(device)
    bad = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 9]], device=device)
    src = torch.ones(2, 4, device=device)
    for call in (lambda: torch.scatter_add(x, 1, bad, src), lambda: x.scatter_add_(1, bad, src),
                 lambda: x.scatter_(1, bad, src),
                 lambda: x.index_put_((torch.tensor([0, 3]),), torch.ones(4), accumulate=True)):
        with pytest.raises((RuntimeError, IndexError)):
            call()
        assert torch.equal(x.cpu(), torch.arange(12.).view(3, 4))
    assert bt.fallback_counts() == {}
