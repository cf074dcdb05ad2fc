"""The seeded cases of op set v2's random ops and hardtanh for the differential test.

PyTorch's generators cannot give Backplane's bits, so the expected values of the random ops
come from a second, independent implementation of docs/random.md written here: Philox 4x32-10
over Python integers, the uniform transform in f32 tensor arithmetic (f64 in Python floats),
the integer transform over Python integers, and bernoulli and native_dropout over those. For
normal_ the ln and cos are libm's (math.log, math.cos), within 1e-15 of Backplane's own
polynomials, so its values are compared within the differential test's default tolerance;
every other random op is compared bit for bit. hardtanh and hardtanh_backward are PyTorch's
own (its CPU has no f16 hardtanh and only f32/f64 hardtanh_backward)."""

import math

import torch

from harness import ALL, FLOATS, NONE, Arg, DTYPES, S, T, TensorArg

MASK32 = 0xFFFFFFFF
MASK64 = (1 << 64) - 1
DIGITS = {"f16": 11, "bf16": 8, "f32": 24}


def philox(seed, counter):
    """Philox 4x32-10 (Random123) at key `seed`, counter (counter, 0) as 64-bit halves."""
    c = [counter & MASK32, (counter >> 32) & MASK32, 0, 0]
    k0, k1 = seed & MASK32, (seed >> 32) & MASK32
    for r in range(10):
        if r:
            k0, k1 = (k0 + 0x9E3779B9) & MASK32, (k1 + 0xBB67AE85) & MASK32
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & MASK32, (p0 >> 32) ^ c[3] ^ k1, p0 & MASK32]
    return c


def blocks(self, seed, offset):
    """The block of each element of `self`, row-major."""
    seed, offset = seed & MASK64, offset & MASK64
    return [philox(seed, (offset + i) & MASK64) for i in range(self.numel())]


def shaped(values, self, dtype):
    return torch.tensor(values, dtype=dtype).reshape(self.shape) if values else \
        torch.empty(self.shape, dtype=dtype)


def uniform_values(self, lo, hi, seed, offset):
    name = [k for k, v in DTYPES.items() if v == self.dtype][0]
    bs = blocks(self, seed, offset)
    if name == "f64":
        xs = [(((b[1] << 32) | b[0]) & ((1 << 53) - 1)) * 2.0 ** -53 for b in bs]
        return shaped([x * (hi - lo) + lo for x in xs], self, torch.float64)
    d = DIGITS[name]
    x = shaped([(b[0] & ((1 << d) - 1)) * 2.0 ** -d for b in bs], self, torch.float32)
    low = torch.tensor(lo, dtype=self.dtype).float()
    high = torch.tensor(hi, dtype=self.dtype).float()
    return (x * (high - low) + low).to(self.dtype)


def uniform(self, seed, offset, **kw):
    return uniform_values(self, kw["from"], kw["to"], seed, offset)


def normal(self, mean, std, seed, offset):
    out = []
    for b in blocks(self, seed, offset):
        u1 = ((((b[1] << 32) | b[0]) >> 11) + 1) * 2.0 ** -53
        u2 = (((b[3] << 32) | b[2]) >> 11) * 2.0 ** -53
        out.append(mean + std * (math.sqrt(-2.0 * math.log(u1)) * math.cos(2 * math.pi * u2)))
    return shaped(out, self, torch.float64).to(self.dtype)


def largest_draw(dtype):
    name = [k for k, v in DTYPES.items() if v == dtype][0]
    if name == "bool":
        return 1
    if name in DIGITS or name == "f64":
        return 1 << (53 if name == "f64" else DIGITS[name])
    return torch.iinfo(dtype).max


def random_from(self, seed, offset, **kw):
    lo, hi = kw["from"], kw.get("to")
    full = hi is None and lo == -(1 << 63)
    span = (hi - lo) if hi is not None else largest_draw(self.dtype) - lo + 1
    out = []
    for b in blocks(self, seed, offset):
        low64 = (b[1] << 32) | b[0]
        if full:
            v = low64
        else:
            v = ((low64 if span >= 1 << 32 else b[0]) % span + lo) & MASK64
        out.append(v - (1 << 64) if v >= 1 << 63 else v)
    return shaped(out, self, torch.int64).to(self.dtype)


def bernoulli_mask(self, p, seed, offset):
    u = uniform_values(torch.empty(self.shape, dtype=torch.float32), 0.0, 1.0, seed, offset)
    return u < p


def bernoulli_float(self, p, seed, offset):
    return bernoulli_mask(self, p, seed, offset).to(self.dtype)


def native_dropout(input, p, train, seed, offset):
    if train is False:
        return input.clone(), torch.ones(input.shape, dtype=torch.bool)
    keep = 1.0 - p
    mask = bernoulli_mask(input, keep, seed, offset)
    return input.mul(mask).mul(0.0 if keep == 0 else 1.0 / keep), mask


def aten_hardtanh(self, min_val, max_val):
    return torch.ops.aten.hardtanh(self, min_val, max_val)


def position(seed, offset):
    return [("seed", Arg("int", seed)), ("offset", Arg("int", offset))]


class RandomCases:
    """The `random_ops` part of OpSetV2Cases (cases.Generator provides add and tensor)."""

    def random_ops(self):
        layouts = ["contiguous", "transposed", "strided", "offset"]
        shapes = [[3, 4], [], [0, 3], [2, 3, 5]]
        for i, dtype in enumerate(FLOATS):
            for j, shape in enumerate(shapes):
                self_arg = lambda: self.tensor(dtype, shape, "normal", layouts[(i + j) % 4])
                seed, offset = 1000 * i + j, [0, 7, -3, 1 << 40][j]
                self.add("uniform_", "v2", [("self", self_arg()), ("from", Arg("float", -2.0)),
                                            ("to", Arg("float", 3.0))] + position(seed, offset),
                         torch_fn=uniform)
                self.add("normal_", "v2", [("self", self_arg()), ("mean", Arg("float", 0.5)),
                                           ("std", Arg("float", 2.0))] + position(seed, offset),
                         torch_fn=normal)
        for i, dtype in enumerate(ALL):
            layout = ["contiguous", "transposed", "strided"][i % 3]
            lo, hi = (0, 2) if dtype == "bool" else (0, 100) if dtype == "u8" else (-50, 50)
            for frm, to in [(lo, hi), (0, None)]:
                self.add("random_.from", "v2", [
                    ("self", self.tensor(dtype, [4, 6], "normal", layout)),
                    ("from", Arg("int", frm)), ("to", Arg("int", to) if to is not None else NONE)
                ] + position(17 + i, 3), torch_fn=random_from)
            self.add("bernoulli_.float", "v2", [
                ("self", self.tensor(dtype, [5, 7], "normal", layout)), ("p", Arg("float", 0.3))
            ] + position(40 + i, 0), torch_fn=bernoulli_float)
        for dtype in ["i64", "f64", "f32"]:  # 64-bit draws: a 2^40 range, and the full range
            for frm, to in [(0, 1 << 40), (-(1 << 63), None)]:
                self.add("random_.from", "v2", [
                    ("self", self.tensor(dtype, [3, 5], "normal", "contiguous")),
                    ("from", Arg("int", frm)), ("to", Arg("int", to) if to is not None else NONE)
                ] + position(-7, 11), torch_fn=random_from)
        self.more_random_ops()

    def more_random_ops(self):
        for dtype in ["f32", "i32", "bool"]:
            self.add("random_.to", "v2", [("self", self.tensor(dtype, [6], "normal", "contiguous")),
                                          ("to", Arg("int", 2))] + position(5, 0),
                     torch_fn=lambda self, to, seed, offset: random_from(
                         self, seed, offset, **{"from": 0, "to": to}))
            self.add("random_", "v2", [("self", self.tensor(dtype, [6], "normal", "strided"))]
                     + position(6, 1), torch_fn=lambda self, seed, offset: random_from(
                         self, seed, offset, **{"from": 0}))
            self.add("bernoulli_.Tensor", "v2", [
                ("self", self.tensor(dtype, [4, 5], "normal", "transposed")),
                ("p", self.tensor("f64", [5], "unit"))] + position(8, 2),
                torch_fn=lambda self, p, seed, offset: bernoulli_mask(self, p, seed, offset)
                .to(self.dtype))
        for dtype in FLOATS:
            for p, train in [(0.25, True), (0.0, True), (1.0, True), (0.5, False), (0.1, None)]:
                self.add("native_dropout", "v2", [
                    ("input", self.tensor(dtype, [6, 5], "special", "contiguous")),
                    ("p", Arg("float", p)), ("train", Arg("bool", train) if train is not None
                                             else NONE)] + position(9, 4),
                    torch_fn=native_dropout)
            self.add("native_dropout_backward", "v2", [
                ("grad_output", self.tensor(dtype, [4, 5], "special")),
                ("mask", self.tensor("bool", [4, 5])), ("scale", Arg("float", 1.25))])

    def hardtanhs(self):
        for dtype in [d for d in ALL if d not in ("bool", "f16")]:
            lo, hi = (0, 6) if dtype == "u8" else (-1, 1) if dtype in FLOATS else (-2, 5)
            self.add("hardtanh", "v2", [("self", self.tensor(dtype, [4, 6])),
                                        ("min_val", S(lo)), ("max_val", S(hi))],
                     torch_fn=aten_hardtanh)
            self.add("hardtanh", "v2", [("self", self.tensor(dtype, [3, 5], "normal")),
                                        ("min_val", S(0)), ("max_val", S(6))],
                     torch_fn=aten_hardtanh)
        # 16 elements with NaN: PyTorch's vectorised loop (hardtanh-backward-nan).
        nans = torch.tensor([float("nan"), 1.0, 7.0, -1.0] * 4, dtype=torch.float32)
        self.add("hardtanh_backward", "documented", [
            ("grad_output", self.tensor("f32", [16], "normal", "contiguous")),
            ("self", T(TensorArg(nans, [16], [1]))), ("min_val", S(0.0)), ("max_val", S(6.0))],
            torch_fn=lambda grad_output, self, min_val, max_val: torch.ops.aten.hardtanh_backward(
                grad_output, self, min_val, max_val))
        for dtype in ["f32", "f64"]:
            for grad_shape, shape in [([4, 6], [4, 6]), ([6], [4, 6]), ([], [])]:
                self.add("hardtanh_backward", "v2", [
                    ("grad_output", self.tensor(dtype, grad_shape, "normal")),
                    ("self", self.tensor(dtype, shape)), ("min_val", S(0.0)),
                    ("max_val", S(6.0))], torch_fn=lambda grad_output, self, min_val, max_val: torch.ops.aten.hardtanh_backward(
                        grad_output, self, min_val, max_val))
