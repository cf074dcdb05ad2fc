"""The seeded cases of op set v2's scatter ops for the differential test: scatter.src (the
last of repeated indices wins, as PyTorch's CPU loop), scatter_reduce.two with every
reduction with and without self (NaN among the special values; integer mean's floor
division), the value and "add"/"multiply" forms, scatter_add, an index smaller than self
and src, 0-d and empty indices."""

import torch

from harness import ALL, FLOATS, Arg, S, T, TensorArg


def index_arg(values, shape):
    base = torch.tensor(values, dtype=torch.int64).reshape(-1)
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return T(TensorArg(base, list(shape), list(reversed(strides))))


class ScatterCases:
    """The `scatters` part of OpSetV2Cases (cases.Generator provides add, tensor and rng)."""

    def scatter_index(self, shape, hi):
        n = 1
        for size in shape:
            n *= size
        return index_arg([self.rng.randrange(hi) for _ in range(n)], shape)

    def scatters(self):
        shapes = [([5, 4], 0, [7, 4], [7, 4]), ([4, 6], 1, [4, 8], [4, 9]),
                  ([6, 5], 0, [2, 3], [3, 4])]
        for dtype in ALL:
            for self_shape, dim, index_shape, src_shape in shapes:
                hi = self_shape[dim]
                common = lambda: [("self", self.tensor(dtype, self_shape, "special")),
                                  ("dim", Arg("int", dim)), ("index", self.scatter_index(index_shape, hi))]
                self.add("scatter.src", "v2", common() + [("src", self.tensor(dtype, src_shape))])
                self.add("scatter_add", "v2", common() + [("src", self.tensor(dtype, src_shape))])
                self.add("scatter.value", "v2", common() + [("value", S(True if dtype == "bool"
                                                                       else 3))])
                for reduce in ["add", "multiply"]:
                    self.add("scatter.reduce", "v2", common() + [
                        ("src", self.tensor(dtype, src_shape)), ("reduce", Arg("str", reduce))])
                self.add("scatter.value_reduce", "v2", common() + [
                    ("value", S(True if dtype == "bool" else 2)), ("reduce", Arg("str", "add"))])
                for reduce in ["sum", "prod", "mean", "amax", "amin"]:
                    if dtype == "bool" and reduce == "mean":
                        continue
                    for include_self in [True, False]:
                        self.add("scatter_reduce.two", "v2", common() + [
                            ("src", self.tensor(dtype, src_shape)), ("reduce", Arg("str", reduce)),
                            ("include_self", Arg("bool", include_self))])
        for dtype in FLOATS:
            self.add("scatter.src", "v2", [("self", self.tensor(dtype, [])),
                                           ("dim", Arg("int", 0)), ("index", index_arg([0], [])),
                                           ("src", self.tensor(dtype, []))])
            self.add("scatter_reduce.two", "v2", [
                ("self", self.tensor(dtype, [3])), ("dim", Arg("int", 0)),
                ("index", index_arg([], [0])), ("src", self.tensor(dtype, [0])),
                ("reduce", Arg("str", "mean")), ("include_self", Arg("bool", False))])
