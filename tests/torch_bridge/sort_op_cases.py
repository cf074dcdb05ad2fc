"""The bridge cases of op set v2's sorting ops (test_ops.py): torch.sort (stable and not),
torch.argsort (stable=True reaches aten::argsort.stable; the default is a composite over
sort) and torch.topk, functional and out=, against PyTorch's CPU. Ties are only given to
the stable forms: PyTorch's unstable sort and topk leave the order of equal elements
unspecified (`sort-ties` in docs/ops.md)."""

import torch

from op_cases import ALL, FLOATS

aten = torch.ops.aten


def sort_cases(b):
    for dtype in ALL:
        x = b.t([5, 8], dtype, "special")
        b.functional("sort.stable", dtype, lambda x: torch.sort(x, stable=True), [x])
        b.functional("sort.stable", f"{dtype}-descending-dim0",
                     lambda x: torch.sort(x, dim=0, descending=True, stable=True), [x])
        b.functional("argsort.stable", dtype, lambda x: torch.argsort(x, stable=True, dim=-1),
                     [x])
    b.add("sort.stable", "f32-out", lambda x, v, i: tuple(aten.sort.values_stable(
        x, stable=True, dim=1, descending=False, values=v, indices=i)),
        b.t([4, 6], "f32", "special"), b.t([4, 6], "f32"), b.t([4, 6], "i64"), form="out",
        written=(1, 2))
    for dtype in FLOATS:  # normal values: no ties for the unstable forms
        x = b.t([6, 7], dtype, "normal")
        b.functional("sort", dtype, lambda x: torch.sort(x, dim=1, descending=True), [x])
        b.functional("topk", dtype, lambda x: torch.topk(x, 3), [x])
        b.functional("topk", f"{dtype}-smallest-dim0",
                     lambda x: torch.topk(x, 2, dim=0, largest=False), [x])
    x = b.t([6, 7], "f32", "normal")
    b.functional("sort", "f32-torch.argsort", lambda x: torch.argsort(x, dim=1), [x])
    for op, call, shapes in [("sort", aten.sort.values, ([6, 7], [6, 7])),
                             ("topk", aten.topk.values, ([6, 3], [6, 3]))]:
        extra = (1,) if op == "sort" else (3,)
        b.add(op, "f32-out", lambda x, v, i, call=call, extra=extra: tuple(
            call(x, *extra, values=v, indices=i)), x,
            *[b.t(shape, name, "normal") for shape, name in zip(shapes, ["f32", "i64"])],
            form="out", written=(1, 2))
    b.add("argsort.stable", "i32-out", lambda x, o: aten.argsort.stable_out(
        x, stable=True, dim=0, out=o), b.t([5, 4], "i32", "special"), b.t([5, 4], "i64"),
        form="out", written=1)
