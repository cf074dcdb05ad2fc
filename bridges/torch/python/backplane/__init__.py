"""Backplane's Python packages. `backplane.torch` makes every Backplane device a PyTorch
device (docs/pytorch.md)."""
