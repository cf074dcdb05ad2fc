"""The bridge cases of op set v2's scatter ops (test_ops.py): Tensor.scatter (src, value, and
reduce="add"/"multiply"), scatter_add and scatter_reduce (every reduction, with and without
self), functional, in place and out=, against PyTorch's CPU, with repeated indices."""

import torch
import torch.nn.functional as F

from op_cases import ALL, Arg

aten = torch.ops.aten


def scatter_index(b, shape, hi):
    return Arg(torch.randint(0, hi, shape, generator=b.gen))


def scatter_cases(b):
    for dtype in ALL:
        x, index, src = b.t([5, 4], dtype, "special"), scatter_index(b, [7, 4], 5), b.t([7, 4], dtype)
        value = True if dtype == "bool" else 3
        b.functional("scatter.src", dtype, lambda x, i, s: torch.scatter(x, 0, i, s), [x, index, src])
        b.functional("scatter.value", dtype, lambda x, i, v=value: torch.scatter(x, 0, i, v), [x, index])
        b.functional("scatter_add", dtype, lambda x, i, s: torch.scatter_add(x, 0, i, s),
                     [x, index, src], "accum")
        for reduce in ["sum", "prod", "mean", "amax", "amin"]:
            if dtype == "bool" and reduce == "mean":
                continue
            for include_self in [True, False]:
                b.functional("scatter_reduce.two", f"{dtype}-{reduce}-self{int(include_self)}",
                             lambda x, i, s, r=reduce, inc=include_self: torch.scatter_reduce(
                                 x, 0, i, s, r, include_self=inc), [x, index, src], "accum")
    x, index, src = b.t([4, 6], "f32", "special"), scatter_index(b, [4, 8], 6), b.t([4, 9], "f32")
    for reduce in ["add", "multiply"]:
        b.functional("scatter.reduce", f"f32-{reduce}",
                     lambda x, i, s, r=reduce: torch.scatter(x, 1, i, s, reduce=r), [x, index, src],
                     "accum")
        b.functional("scatter.value_reduce", f"f32-{reduce}",
                     lambda x, i, r=reduce: torch.scatter(x, 1, i, 2.0, reduce=r), [x, index],
                     "accum")
        b.in_place("scatter.reduce", f"f32-{reduce}-scatter_",
                   lambda x, i, s, r=reduce: x.scatter_(1, i, s, reduce=r), [x, index, src], "accum")
        b.in_place("scatter.value_reduce", f"f32-{reduce}-scatter_",
                   lambda x, i, r=reduce: x.scatter_(1, i, 2.0, reduce=r), [x, index], "accum")
        b.out("scatter.reduce", f"f32-{reduce}", aten.scatter.reduce_out, [x, 1, index, src],
              "accum", reduce=reduce)
        b.out("scatter.value_reduce", f"f32-{reduce}", aten.scatter.value_reduce_out,
              [x, 1, index, 2.0], "accum", reduce=reduce)
    b.in_place("scatter.src", "f32-scatter_", lambda x, i, s: x.scatter_(1, i, s), [x, index, src])
    b.in_place("scatter.value", "f32-scatter_", lambda x, i: x.scatter_(1, i, -1.5), [x, index])
    b.in_place("scatter_add", "f32-scatter_add_", lambda x, i, s: x.scatter_add_(1, i, s),
               [x, index, src], "accum")
    b.in_place("scatter_reduce.two", "f32-scatter_reduce_",
               lambda x, i, s: x.scatter_reduce_(1, i, s, "amax", include_self=False),
               [x, index, src])
    # F.one_hot: zeros().scatter_(-1, index, 1), after checking its classes with min and max.
    b.functional("scatter.value", "i64-F.one_hot", lambda i: F.one_hot(i, 6),
                 [scatter_index(b, [4, 3], 6)])
    b.out("scatter.src", "f32", aten.scatter.src_out, [x, 1, index, src])
    b.out("scatter.value", "f32", aten.scatter.value_out, [x, 1, index, 0.5])
    b.out("scatter_add", "f32", aten.scatter_add.out, [x, 1, index, src], "accum")
    b.out("scatter_reduce.two", "f32", aten.scatter_reduce.two_out, [x, 1, index, src, "mean"],
          "accum")
