"""The seeded cases of op set v2's indexing ops whose result shape depends on values, for the
differential test: nonzero and nonzero_static (NaN and -0.0 among the special values),
masked_select and masked_scatter with broadcasting, one_hot, and index.Tensor / index_put with None entries,
masks, negative and repeated indices, indices that broadcast, adjacent and separated index
tensors, and accumulate. index_put without accumulate gets distinct positions: where
several write one element PyTorch's CPU takes them in an order its iterator picks from the
memory layout, while Backplane takes index order (docs/ops.md); the C++ tests check that."""

import torch

from harness import ALL, Arg
from scatter_cases import index_arg


def nonzero_static(self, size, fill_value=-1):
    """PyTorch 2.1's nonzero_static, which 1.13 lacks, from nonzero."""
    rows = torch.nonzero(self)[:size]
    padding = torch.full((size - rows.shape[0], self.dim()), fill_value, dtype=torch.int64)
    return torch.cat([rows, padding])

# (self, mask) shapes of masked_select: equal, the mask broadcast, self broadcast, 0-d, empty.
MASKED_SELECT_SHAPES = [([5, 7], [5, 7]), ([5, 7], [7]), ([7], [5, 7]), ([], []), ([0, 3], [0, 3])]


class IndexingCases:
    """The `indexings` part of OpSetV2Cases (cases.Generator provides add, tensor and rng)."""

    def index_values(self, shape, lo, hi):
        n = 1
        for size in shape:
            n *= size
        return index_arg([self.rng.randint(lo, hi) for _ in range(n)], shape)

    def distinct_values(self, shape, size):
        """An index of `shape` naming distinct positions of a dim of `size`, some negative."""
        n = 1
        for s in shape:
            n *= s
        picked = self.rng.sample(range(size), n)
        return index_arg([p - size if self.rng.random() < 0.5 else p for p in picked], shape)

    # self [4, 5, 6]: (indices, the shape index gives), None meaning a whole dim; `distinct`:
    # no position named twice.
    def index_lists(self, distinct=False):
        pick = self.distinct_values if distinct else lambda shape, size: self.index_values(
            shape, -size, size - 1)
        return [
            ([pick([3] if distinct else [7], 4)], [3 if distinct else 7, 5, 6]),
            ([None, pick([2, 2] if distinct else [2, 3], 5)], [4, 2, 2 if distinct else 3, 6]),
            ([pick([3, 1], 4), None, pick([2], 6)], [3, 2, 5]),
            ([self.tensor("bool", [4, 5], "normal")], None),
            ([None, self.tensor("bool", [5], "normal"), self.index_values([1], 0, 5)], None),
            ([self.index_values([0], 0, 3)], [0, 5, 6]),
        ]

    def indexings(self):
        for dtype in ALL:
            for shape in ([5, 7], [3, 4, 5], [13], [], [0, 3]):
                self.add("nonzero", "v2", [("self", self.tensor(dtype, shape, "special"))])
            for self_shape, mask_shape in MASKED_SELECT_SHAPES:
                self.add("masked_select", "v2", [("self", self.tensor(dtype, self_shape)),
                                                 ("mask", self.tensor("bool", mask_shape))])
                self.add("masked_scatter", "v2", [("self", self.tensor(dtype, self_shape)),
                                                  ("mask", self.tensor("bool", mask_shape)),
                                                  ("source", self.tensor(dtype, [40]))])
            for indices, _ in self.index_lists():
                self.add("index.Tensor", "v2", [("self", self.tensor(dtype, [4, 5, 6])),
                                                ("indices", listed(indices))])
            for accumulate in (False, True):
                for indices, result in self.index_lists(distinct=not accumulate):
                    if result is None:  # a mask's count: no values shape to draw
                        continue
                    self.add("index_put", "v2", [("self", self.tensor(dtype, [4, 5, 6])),
                                                 ("indices", listed(indices)),
                                                 ("values", self.tensor(dtype, result)),
                                                 ("accumulate", Arg("bool", accumulate))])
            for shape, size in (([5, 7], 40), ([13], 4), ([], 2), ([0, 3], 1)):
                self.add("nonzero_static", "v2", [("self", self.tensor(dtype, shape, "special")),
                                                  ("size", Arg("int", size)),
                                                  ("fill_value", Arg("int", -7))],
                         torch_fn=nonzero_static)
        for shape, classes in (([5, 3], -1), ([7], 9), ([], 5), ([0], 3)):
            hi = 6 if classes == -1 else classes - 1
            self.add("one_hot", "v2", [("self", self.index_values(shape, 0, hi)),
                                       ("num_classes", Arg("int", classes))])


def listed(indices):
    """A Tensor?[] argument of index Args and None."""
    return Arg("tensors", [None if i is None else i.value for i in indices])
