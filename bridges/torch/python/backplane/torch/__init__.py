"""backplane.torch: every Backplane device as a PyTorch device.

Importing it starts the Backplane runtime the way any Backplane application starts it (the
config file, the BACKPLANE_* variables, plugin discovery) and maps PyTorch's PrivateUse1
indices onto Backplane devices: ``privateuseone:0`` is the default device, the other
selected devices follow in priority order. docs/pytorch.md is the guide.

    import torch, backplane.torch
    x = torch.ones(3, device="privateuseone:0")
"""
import pathlib as _pathlib

import torch as _torch  # loads libtorch before the extension that links it

from . import _C


def _plugin_dirs():
    try:  # the build tree's package says where that build's plugins are
        from ._build_tree import PLUGIN_DIRS
        return list(PLUGIN_DIRS)
    except ImportError:
        pass
    # An installed package: <prefix>/lib/pythonX.Y/dist-packages/backplane/torch/ has the
    # plugins in <prefix>/lib/backplane/plugins, also after the install was moved.
    plugins = _pathlib.Path(__file__).resolve().parents[4] / "backplane" / "plugins"
    return [str(plugins)] if plugins.is_dir() else []


_C.start(_plugin_dirs())


def devices():
    """The Backplane device of each privateuseone index, in index order ("cpu:0", ...)."""
    return _C.devices()


def device_name(index):
    """The Backplane device privateuseone:`index` stands for, e.g. "opencl:0"."""
    return _C.device_name(index)


def set_devices(devices):
    """Maps privateuseone:0, 1, ... onto the given Backplane devices, e.g.
    ``set_devices(["opencl:0", "cpu:0"])``. Call it before making tensors: a tensor keeps the
    Backplane device it was made on, and using it under a changed index raises."""
    _C.set_devices(list(devices))


def fallback_counts():
    """Calls per aten operator that ran on PyTorch's CPU kernels instead of Backplane,
    e.g. {"aten::native_layer_norm": 2}."""
    return dict(_C.fallback_counts())


def reset_fallback_counts():
    _C.reset_fallback_counts()


def set_fallback(mode):
    """'warn' (the default: run on the CPU, warn once per operator) or 'error' (raise
    RuntimeError naming the operator). BACKPLANE_TORCH_FALLBACK sets it at import."""
    _C.set_fallback(mode)


def fallback_mode():
    return _C.fallback_mode()


def mapped_ops():
    """(aten overload, Backplane op, form) for every aten operator that runs on Backplane;
    form is 'functional', 'in-place', 'out' or 'mutating'."""
    return list(_C.mapped_ops())


__all__ = ["devices", "device_name", "set_devices", "fallback_counts", "reset_fallback_counts",
           "set_fallback", "fallback_mode", "mapped_ops"]
