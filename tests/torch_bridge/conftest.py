"""Shared set-up of the PyTorch bridge's tests (bridges/torch, docs/pytorch.md).

The tests run in one Python process that imported `backplane.torch` (the runtime started as
its config and environment say; ctest points BACKPLANE_PLUGIN_PATH-free discovery at the
build's plugins through the package itself). They are skipped only where PyTorch is absent;
a bridge that was built but does not import is an error. `device` runs a test on each
Backplane device that CI always has (opencl:0 on PoCL, cpu:0, reference:0), as the
privateuseone index the bridge mapped it to. Model and training tests record their errors
and fallback counts in `RESULTS`, printed at the end of the run.
"""
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch", reason="PyTorch (Debian's python3-torch) is not installed")
import backplane.torch as bt  # noqa: E402  (after torch: a built bridge must import)

BACKENDS = ("opencl:0", "cpu:0", "reference:0")
RESULTS = []


def torch_device(backplane_device):
    """The privateuseone device the bridge maps `backplane_device` ("cpu:0") to."""
    return torch.device("privateuseone", bt.devices().index(backplane_device))


@pytest.fixture(params=BACKENDS)
def device(request):
    if request.param not in bt.devices():
        pytest.fail(f"{request.param} is not mapped by the bridge: {bt.devices()}")
    return torch_device(request.param)


@pytest.fixture
def fresh_counts():
    """Fallback counts from zero for one test."""
    bt.reset_fallback_counts()
    yield
    bt.reset_fallback_counts()


def record(model, device, **figures):
    """Keeps one line of the end-of-run report."""
    name = bt.device_name(device.index)
    RESULTS.append((model, f"{device} ({name})", figures))


def run_python(code, **env):
    """Runs `code` in a fresh /usr/bin/python3 with the bridge importable and `env` added;
    returns the completed process (for start-up settings a running process cannot change)."""
    full_env = dict(os.environ)
    full_env.update(env)
    return subprocess.run([sys.executable, "-c", code], env=full_env, capture_output=True,
                          text=True, timeout=300)


def pytest_terminal_summary(terminalreporter):
    if not RESULTS:
        return
    terminalreporter.section("PyTorch bridge: errors against torch CPU and fallbacks")
    for model, device, figures in RESULTS:
        text = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                         for k, v in figures.items())
        terminalreporter.write_line(f"{model:<28} {device:<32} {text}")
