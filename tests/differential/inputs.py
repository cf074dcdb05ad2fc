"""Seeded inputs for the differential test: value pools with each dtype's special values
(NaN, +-inf, -0.0, subnormals, the integer limits, ties for rounding) and every layout
class (contiguous, transposed, strided with gaps, offset, expanded with stride 0, 0-d,
empty, odd sizes)."""

import random

import torch

from harness import DTYPES, FLOATS, TensorArg, contiguous_strides

INF, NAN = float("inf"), float("nan")
FLOAT_SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.5, 3.0, -7.25, 1e-3, 100.0,
                  65504.0, -65520.0, 1e30, -3e38, 1e-40, 6e-8, INF, -INF, NAN]
LAYOUTS = ["contiguous", "transposed", "strided", "offset", "expanded"]


class Values:
    """Draws element values of a dtype. `kind` is "special" (random values mixed with the
    dtype's special values), "normal" (finite, moderate: for sums and norms), "positive",
    "small_int" (integers in [-4, 4]: exponents, exact products), "unit" (in (-1, 1))
    or "nonzero" (divisors)."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def one(self, dtype, kind):
        r = self.rng
        if dtype == "bool":
            return r.random() < 0.5
        if dtype in FLOATS:
            if kind == "special" and r.random() < 0.4:
                return r.choice(FLOAT_SPECIALS)
            if kind == "positive":
                return abs(r.gauss(0, 3)) + 0.01
            if kind == "small_int":
                return float(r.randint(-4, 4))
            if kind == "unit":
                return r.uniform(-0.99, 0.99)
            if kind == "nonzero":
                return r.choice([-1, 1]) * (abs(r.gauss(0, 3)) + 0.25)
            return round(r.gauss(0, 3), r.choice([0, 1, 3, 8]))
        info = torch.iinfo(DTYPES[dtype])
        if kind == "special" and r.random() < 0.3:
            return r.choice([info.min, info.max, info.min + 1, info.max - 1, 0, 1, -1])
        if kind == "nonzero":
            v = r.choice([r.randint(1, 100), -r.randint(1, 100), info.min, info.max])
            return max(info.min, min(info.max, v)) or 1
        if kind == "small_int" or kind == "unit":
            return max(info.min, min(info.max, r.randint(-4, 4)))
        if kind == "positive":
            return r.randint(1, min(info.max, 100))
        return max(info.min, min(info.max, r.randint(-100, 100)))

    def storage(self, dtype, numel, kind):
        vals = [self.one(dtype, kind) for _ in range(numel)]
        if dtype in FLOATS:
            # Values out of the dtype's range become +-inf, as a conversion would make them.
            return torch.tensor(vals, dtype=torch.float64).to(DTYPES[dtype])
        if dtype == "u8":
            vals = [v % 256 for v in vals]
        return torch.tensor(vals, dtype=DTYPES[dtype])

    def tensor(self, dtype, shape, kind="special", layout="contiguous"):
        """A TensorArg of `shape` whose view has the given layout class (a layout that the
        shape cannot have, such as a transposed 1-D tensor, falls back to contiguous)."""
        shape = list(shape)
        numel = 1
        for s in shape:
            numel *= s
        if layout == "transposed" and len(shape) >= 2 and numel > 0:
            strides = list(reversed(contiguous_strides(list(reversed(shape)))))
            return TensorArg(self.storage(dtype, numel, kind), shape, strides)
        if layout == "strided" and shape and numel > 0:
            wide = shape[:-1] + [2 * shape[-1]]
            strides = contiguous_strides(wide)
            strides[-1] = 2
            return TensorArg(self.storage(dtype, 2 * numel, kind), shape, strides)
        if layout == "offset" and numel > 0:
            return TensorArg(self.storage(dtype, numel + 3, kind), shape,
                             contiguous_strides(shape), 3)
        if layout == "expanded" and any(s > 1 for s in shape):
            dim = max(range(len(shape)), key=lambda d: shape[d])
            small = shape[:dim] + [1] + shape[dim + 1:]
            strides = contiguous_strides(small)
            strides[dim] = 0
            return TensorArg(self.storage(dtype, numel // shape[dim], kind), shape, strides)
        return TensorArg(self.storage(dtype, numel, kind), shape, contiguous_strides(shape))

    def layout(self):
        return self.rng.choice(LAYOUTS)
