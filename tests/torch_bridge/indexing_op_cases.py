"""The bridge cases of op set v2's indexing ops whose result shape depends on values
(test_ops.py): nonzero, masked_select, masked_scatter, advanced indexing (x[i], x[:, i], x[i, :, j],
x[mask], with index tensors on the device or on the CPU) and index_put (x[i] = v,
index_put_ with accumulate, and the _index_put_impl_ that index's gradient calls),
functional, in place and out=, against PyTorch's CPU."""

import torch

from op_cases import ALL, Arg

aten = torch.ops.aten


def index_values(b, shape, lo, hi):
    return Arg(torch.randint(lo, hi, shape, generator=b.gen))


def mask(b, shape):
    return Arg(torch.rand(shape, generator=b.gen) < 0.5)


def advanced_indexing_cases(b):
    for dtype in ALL:
        x = b.t([4, 5, 6], dtype, "special")
        rows, firsts, lasts = (index_values(b, [7], -4, 4), index_values(b, [3, 1], 0, 4),
                               index_values(b, [2], -6, 6))
        b.functional("nonzero", dtype, torch.nonzero, [x])
        b.functional("masked_select", dtype, torch.masked_select, [x, mask(b, [5, 6])])
        b.functional("masked_scatter", dtype, torch.masked_scatter,
                     [x, mask(b, [5, 6]), b.t([150], dtype)])
        b.functional("index.Tensor", f"{dtype}-rows", lambda x, i: x[i], [x, rows])
        b.functional("index.Tensor", f"{dtype}-separated", lambda x, i, j: x[i, :, j],
                     [x, firsts, lasts])
        b.functional("index.Tensor", f"{dtype}-mask", lambda x, m: x[:, m], [x, mask(b, [5, 6])])
        values = b.t([7, 5, 6], dtype)
        b.functional("index_put", dtype, lambda x, i, v: torch.index_put(x, (i,), v),
                     [x, rows, values])
        b.in_place("index_put", f"{dtype}-accumulate",
                   lambda x, i, v: x.index_put_((i,), v, accumulate=True), [x, rows, values],
                   "accum")
    x = b.t([4, 5, 6], "f32", "special")
    # Index tensors on the CPU index a device tensor, as they index a CUDA one.
    b.functional("index.Tensor", "f32-cpu-indices", lambda x: x[torch.tensor([3, -1, 0])], [x])
    b.in_place("index_put", "f32-setitem", lambda x, v: x.__setitem__(
        (slice(None), torch.tensor([4, 0])), v) or x, [x, b.t([4, 2, 6], "f32")])
    b.in_place("index_put", "f32-_index_put_impl_-unsafe",
               lambda x, i, v: aten._index_put_impl_(x, [i], v, True, True),
               [x, index_values(b, [9], 0, 4), b.t([9, 5, 6], "f32")], "accum")
    b.in_place("masked_scatter", "f32-masked_scatter_",
               lambda x, m, s: x.masked_scatter_(m, s), [x, mask(b, [6]), b.t([120], "f32")])
    b.out("masked_scatter", "f32", aten.masked_scatter.out, [x, mask(b, [6]), b.t([120], "f32")],
          functional=torch.masked_scatter)
    b.out("nonzero", "f32", aten.nonzero.out, [x], functional=torch.nonzero)
    b.out("masked_select", "f32", aten.masked_select.out, [x, mask(b, [6])],
          functional=torch.masked_select)
    b.out("index.Tensor", "f32", lambda x, i, out=None: aten.index.Tensor_out(x, [None, i], out=out),
          [x, index_values(b, [2], 0, 5)], functional=lambda x, i: x[:, i])
    b.out("index_put", "f32",
          lambda x, i, v, out=None: aten.index_put.out(x, [i], v, True, out=out),
          [x, index_values(b, [3], 0, 4), b.t([3, 5, 6], "f32")], "accum",
          functional=lambda x, i, v: torch.index_put(x, (i,), v, True))
