"""The bridge's everyday contract: tensors move to and from devices and print; modules and
state dicts move; views share memory (no copy for a strided view); Backplane's errors are
RuntimeErrors that leave the process working; mixing devices raises; the device mapping,
the fallback counters, the warning and the strict mode behave as docs/pytorch.md says; and
the runtime starts from the config file and the BACKPLANE_* variables."""
import os
import pathlib
import warnings

import pytest
import torch

import backplane.torch as bt
from conftest import run_python, torch_device


def test_tensor_round_trips(device):
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    on_device = x.to(device)
    assert on_device.device == device
    assert torch.equal(on_device.cpu(), x)
    assert torch.equal(on_device.to("cpu", torch.float64), x.double())
    assert torch.equal(on_device.to(torch.int32).cpu(), x.int())
    assert on_device[1, 2].item() == 6.0
    assert isinstance(on_device.sum().item(), float)
    assert torch.ones(3, dtype=torch.int64, device=device).sum().item() == 3
    text = str(on_device)
    assert f"device='{device}'" in text and "11." in text
    empty = torch.empty(0, 5, device=device)
    assert empty.cpu().shape == (0, 5)


def test_strided_views_share_memory(device):
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3).to(device)
    view = x.t()[1:]  # strided, offset
    view.mul_(10)  # in place through the view: the base must change
    expected = torch.tensor([[0., 10., 20.], [3., 40., 50.]])
    assert torch.equal(x.cpu(), expected)
    assert torch.equal((x.t() + 1).cpu(), expected.t() + 1)


def test_copies_between_devices():
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    on_reference = x.to(torch_device("reference:0"))
    for target in ("cpu:0", "opencl:0"):
        moved = on_reference.t().to(torch_device(target))  # strided source, other device
        assert moved.device == torch_device(target)
        assert torch.equal(moved.cpu(), x.t())
        on_reference.t().contiguous().copy_(moved)  # and back, in place
    again = torch.empty(4, 3, dtype=torch.float64, device=torch_device("cpu:0"))
    again.copy_(on_reference.t())  # converting the dtype across devices
    assert torch.equal(again.cpu(), x.t().double())


def test_factories_take_explicit_defaults(device):
    bt.set_fallback("error")  # a factory argument PyTorch spells out must not fall back
    try:
        got = torch.arange(2, 11, 3, device=device, pin_memory=False, layout=torch.strided)
        assert torch.equal(got.cpu(), torch.arange(2, 11, 3))
        got = torch.arange(0.5, 2.0, 0.5, dtype=torch.float64, device=device)
        assert torch.equal(got.cpu(), torch.arange(0.5, 2.0, 0.5, dtype=torch.float64))
    finally:
        bt.set_fallback("warn")


def test_module_and_state_dict_move(device):
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2)
    moved = torch.nn.Linear(4, 2)
    moved.load_state_dict(model.state_dict())
    moved.to(device)
    assert all(p.device == device for p in moved.parameters())
    state = {k: v.cpu() for k, v in moved.state_dict().items()}
    for key, value in model.state_dict().items():
        assert torch.equal(state[key], value)


def test_backplane_error_is_runtime_error_and_process_goes_on(device):
    a = torch.ones(2, 3, device=device)
    with pytest.raises(RuntimeError, match=r"add.Tensor: .*shape \[4\].*\[2, 3\]"):
        a + torch.ones(4, device=device)
    assert torch.equal((a + a).cpu(), torch.full((2, 3), 2.0))


def test_out_of_another_shape_is_resized(device):
    out = torch.empty(5, device=device)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        result = torch.add(torch.ones(3, device=device), 1, out=out)
    assert result is out and torch.equal(out.cpu(), torch.full((3,), 2.0))
    resized = torch.empty(0, dtype=torch.float64, device=device)
    result = torch.add(torch.ones(3, device=device), 1, out=resized)
    assert result is resized and torch.equal(resized.cpu(), torch.full((3,), 2.0).double())
    with pytest.raises(RuntimeError, match="cannot broadcast"):  # bad inputs still raise
        torch.add(torch.ones(3, device=device), torch.ones(2, device=device), out=out)


def test_mixing_devices_raises():
    first, second = torch_device("cpu:0"), torch_device("reference:0")
    with pytest.raises(RuntimeError, match="same device"):
        torch.ones(2, device=first) + torch.ones(2, device=second)
    with pytest.raises(RuntimeError, match="same device"):
        torch.ones(2, device=first) + torch.ones(2)
    # A 0-dim CPU tensor joins a device call, as in PyTorch.
    assert torch.equal((torch.ones(2, device=first) + torch.tensor(2.0)).cpu(),
                       torch.full((2,), 3.0))


def test_unsupported_dtype_is_named(device):
    with pytest.raises(RuntimeError, match="ComplexFloat"):
        torch.zeros(2, dtype=torch.complex64, device=device)
    with pytest.raises(RuntimeError, match="ComplexFloat, which Backplane does not support"):
        torch.tensor([1 + 2j]).to(device)


def test_fallback_is_counted_and_warned_once(device, fresh_counts):
    x = torch.arange(5, dtype=torch.float32, device=device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.erfinv(x / 8)
        torch.erfinv(x / 8)
    assert torch.equal(torch.erfinv(x / 8).cpu(), torch.erfinv(torch.arange(5.0) / 8))
    assert bt.fallback_counts()["aten::erfinv.out"] == 3
    mentions = [w for w in caught if "aten::erfinv" in str(w.message)]
    assert len(mentions) <= 1  # once per process: an earlier test may have warned already


def test_strict_fallback_raises_naming_the_op(device):
    x = torch.arange(5, dtype=torch.float32, device=device)
    bt.set_fallback("error")
    try:
        with pytest.raises(RuntimeError, match=r"aten::lgamma.*fallback mode 'error'"):
            torch.lgamma(x)
        assert torch.equal((x + 1).cpu(), torch.arange(1.0, 6.0))  # mapped ops still run
    finally:
        bt.set_fallback("warn")
    assert bt.fallback_mode() == "warn"
    with pytest.raises(RuntimeError, match="expected 'warn' or 'error'"):
        bt.set_fallback("sometimes")


def test_device_mapping_calls():
    original = bt.devices()
    assert original[0] != "reference:0", "the default device comes first"
    assert [bt.device_name(i) for i in range(len(original))] == original
    try:
        bt.set_devices(["reference:0", "cpu:0"])
        assert bt.devices() == ["reference:0", "cpu:0"]
        assert torch.equal(torch.ones(2, device="privateuseone:1").cpu(), torch.ones(2))
        with pytest.raises(RuntimeError, match="privateuseone:2 is not mapped"):
            torch.ones(2, device="privateuseone:2")
        with pytest.raises(RuntimeError, match="listed twice"):
            bt.set_devices(["cpu:0", "cpu:0"])
        with pytest.raises(RuntimeError, match="nosuch"):
            bt.set_devices(["nosuch:0"])
        with pytest.raises(RuntimeError, match="not mapped"):
            bt.device_name(7)
    finally:
        bt.set_devices(original)


def test_environment_selects_the_default_device():
    done = run_python("import torch, backplane.torch as bt; print(bt.devices())",
                      BACKPLANE_DEVICE="cpu")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("['cpu:0'")


def test_strict_mode_from_the_environment():
    code = ("import torch, backplane.torch as bt\n"
            "x = torch.ones(3, device='privateuseone:0')\n"
            "torch.lgamma(x)\n")
    done = run_python(code, BACKPLANE_TORCH_FALLBACK="error")
    assert done.returncode != 0
    assert "aten::lgamma" in done.stderr and "RuntimeError" in done.stderr
    done = run_python("import backplane.torch", BACKPLANE_TORCH_FALLBACK="loud")
    assert "BACKPLANE_TORCH_FALLBACK='loud'" in done.stderr


def test_failing_kernel_from_a_plugin_in_the_config_file(tmp_path):
    fixture = (pathlib.Path(os.environ["BP_FIXTURE_DIR"]) / "libbp_fixture_kernel_error.so").resolve()
    config = tmp_path / "config.toml"
    config.write_text(f'[plugins]\nload = ["{fixture}"]\n'
                      '[devices]\npriority = "kernel_error_dev, cpu"\n'
                      '[fallback]\npolicy = "cpu"\n')
    code = ("import torch, backplane.torch as bt\n"
            "print(bt.devices())\n"
            "a = torch.ones(3, device='privateuseone:0')\n"
            "try:\n"
            "    a + a\n"
            "except RuntimeError as e:\n"
            "    print('raised:', e)\n"
            "print('after:', (a - 2 * a).cpu().tolist())\n")
    done = run_python(code, BACKPLANE_CONFIG=str(config))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "['kernel_error_dev:0', 'cpu:0']"
    assert lines[1].startswith("raised:") and "the device refused to add" in lines[1]
    assert lines[2] == "after: [-1.0, -1.0, -1.0]"
