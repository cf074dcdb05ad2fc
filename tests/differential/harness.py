"""The plumbing of the differential test: inputs that both sides can build bit for bit, the
bp_reference_eval process that runs them on the reference backend, PyTorch's call of the
same aten overload, and the element-wise comparison.

An input tensor is a strided view of a 1-D storage (TensorArg), so that a transposed,
strided, offset or expanded input reaches the reference exactly as PyTorch sees it. Floats
travel as C99 hex strings so that NaN, infinities and -0.0 survive JSON.
"""

import json
import math
import os
import subprocess
from dataclasses import dataclass, field

import torch

DTYPES = {
    "bool": torch.bool, "u8": torch.uint8, "i8": torch.int8, "i16": torch.int16,
    "i32": torch.int32, "i64": torch.int64, "f16": torch.float16, "bf16": torch.bfloat16,
    "f32": torch.float32, "f64": torch.float64,
}
NAME_OF = {v: k for k, v in DTYPES.items()}
FLOATS = ["f16", "bf16", "f32", "f64"]
INTS = ["u8", "i8", "i16", "i32", "i64"]
ALL = ["bool"] + INTS + FLOATS

# (mantissa bits with the implicit one, smallest normal exponent) of each floating dtype.
FLOAT_FORMAT = {"f16": (11, -14), "bf16": (8, -126), "f32": (24, -126), "f64": (53, -1022)}


def hexfloat(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x.hex()


def number_json(v):
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": v}
    return {"float": hexfloat(v)}


@dataclass
class TensorArg:
    """A view (shape, strides, offset) of the 1-D contiguous tensor `base`."""
    base: torch.Tensor
    shape: list
    strides: list
    offset: int = 0

    @property
    def dtype(self):
        return NAME_OF[self.base.dtype]

    def torch(self):
        # A fresh copy each time: mutating ops (copy_, fill_) must not see an earlier call.
        return self.base.clone().as_strided(self.shape, self.strides, self.offset)

    def json(self):
        raw = self.base.contiguous().view(torch.uint8) if self.base.numel() else torch.empty(0)
        data = bytes(raw.numpy().tobytes()) if self.base.numel() else b""
        return {"dtype": self.dtype, "shape": list(self.shape), "strides": list(self.strides),
                "offset": self.offset, "storage": data.hex()}

    def describe(self):
        layout = "" if self.strides == contiguous_strides(self.shape) and not self.offset else \
            f" strides={list(self.strides)} offset={self.offset}"
        return f"{self.dtype}{list(self.shape)}{layout}"


@dataclass
class Arg:
    """One argument of a call: kind is tensor, tensors, scalar, int, float, bool, ints, str,
    dtype, device or none; value is what PyTorch receives (a TensorArg for tensors; a list of
    them for tensors, where None is a Tensor?[] entry)."""
    kind: str
    value: object = None

    def json(self):
        k, v = self.kind, self.value
        if k == "tensor":
            return {"tensor": v.json()}
        if k == "tensors":
            return {"tensors": [t.json() if t is not None else None for t in v]}
        if k == "scalar":
            return {"scalar": number_json(v)}
        if k == "float":
            return {"float": hexfloat(v)}
        if k == "none":
            return {"none": True}
        if k == "device":
            return {"device": "reference:0"}
        return {k: v}

    def torch(self):
        k, v = self.kind, self.value
        if k == "tensor":
            return v.torch()
        if k == "tensors":
            return [t.torch() if t is not None else None for t in v]
        if k == "dtype":
            return DTYPES[v]
        if k == "device":
            return torch.device("cpu")
        if k == "none":
            return None
        return v

    def describe(self):
        k, v = self.kind, self.value
        if k == "tensor":
            return v.describe()
        if k == "tensors":
            return "[" + ", ".join(t.describe() if t is not None else "None" for t in v) + "]"
        if k == "none":
            return "None"
        return repr(v)


def T(t):
    """A Tensor argument holding the TensorArg `t`."""
    return Arg("tensor", t)


def S(v):
    """A Scalar argument: a Python bool, int or float, as PyTorch's Python API takes it."""
    return Arg("scalar", v)


NONE = Arg("none")


@dataclass
class Case:
    """One call: `op` is the overload name as Backplane's catalog spells it; `args` pairs
    each argument's schema name with its value (PyTorch receives them by name). `torch_fn`
    computes the expected outputs where aten has no such overload (PyTorch 2.x ops)."""
    op: str
    args: list
    family: str
    torch_fn: object = None
    id: str = ""
    tags: set = field(default_factory=set)

    def describe(self):
        return f"{self.op}(" + ", ".join(f"{n}={a.describe()}" for n, a in self.args) + ")"


def contiguous_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return list(reversed(strides))


def aten_overload(op):
    name, _, overload = op.partition(".")
    return getattr(getattr(torch.ops.aten, name), overload or "default")


def run_torch(case, kwargs=None):
    """PyTorch's outputs of the case as a list of tensors, or the exception it raised.
    `kwargs` replaces the case's arguments (by schema name) when given."""
    kwargs = dict(kwargs) if kwargs is not None else {n: a.torch() for n, a in case.args}
    try:
        out = call_torch(case, kwargs)
    except Exception as e:  # noqa: BLE001 - PyTorch raises RuntimeError, IndexError, ...
        return e
    if isinstance(out, torch.Tensor):
        return [out]
    return list(out)


def call_torch(case, kwargs):
    if case.torch_fn:
        return case.torch_fn(**kwargs)
    # Positional arguments by position (OpOverload's own first parameter is named `self`),
    # keyword-only ones by name.
    overload = aten_overload(case.op)
    schema = overload._schema.arguments
    positional = [kwargs.pop(a.name) for a in schema if not a.kwarg_only and a.name in kwargs]
    if not any(arg.kind == "scalar" for _, arg in case.args):
        return overload(*positional, **kwargs)
    # torch.ops turns a bool Scalar into an int; the Python API keeps it a bool (and calls
    # the same kernel: a Scalar becomes a wrapped-number tensor). add.Scalar's alpha is
    # positional in aten but keyword-only in Python, where a third positional argument means
    # the deprecated add(input, alpha, other).
    if any(a.name == "alpha" and not a.kwarg_only for a in schema):
        kwargs["alpha"] = positional.pop(2)
    base = case.op.split(".")[0]
    if base.endswith("_"):
        return getattr(positional[0], base)(*positional[1:], **kwargs)
    return getattr(torch, base)(*positional, **kwargs)


def evaluator_path():
    evaluator = os.environ.get("BP_REFERENCE_EVAL")
    if not evaluator:
        raise RuntimeError("BP_REFERENCE_EVAL is not set: run this test through ctest "
                           "(ctest --preset default -R differential), which points it at the "
                           "built bp_reference_eval")
    return evaluator


def run_reference(cases):
    """Runs every case on reference:0 in one bp_reference_eval process; returns a dict from
    case id to the list of output tensors or an error string."""
    evaluator = evaluator_path()
    lines = "".join(json.dumps({"id": c.id, "op": c.op, "args": [a.json() for _, a in c.args]})
                    + "\n" for c in cases)
    proc = subprocess.run([evaluator], input=lines, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{evaluator} exited with {proc.returncode}: {proc.stderr}")
    results = {}
    for line in proc.stdout.splitlines():
        r = json.loads(line)
        if "error" in r:
            if r["code"] == "harness":
                raise RuntimeError(f"case {r['id']} could not be read: {r['error']}")
            results[r["id"]] = f"{r['code']}: {r['error']}"
        else:
            results[r["id"]] = [decode_output(o) for o in r["outputs"]]
    return results


def decode_output(o):
    dtype = DTYPES[o["dtype"]]
    data = bytes.fromhex(o["data"])
    if not data:
        return torch.empty(o["shape"], dtype=dtype)
    flat = torch.frombuffer(bytearray(data), dtype=torch.uint8).view(dtype)
    return flat.reshape(o["shape"])


def ulp(value, dtype):
    bits, emin = FLOAT_FORMAT[dtype]
    exponent = math.frexp(abs(value))[1] - 1 if value != 0 else emin
    return math.ldexp(1.0, max(exponent, emin) - (bits - 1))


def is_negative_zero(x):
    return x == 0 and math.copysign(1.0, x) < 0
