"""The seeded cases of op set v2's sorting ops for the differential test: sort.stable (both
directions, each dim, ties, NaN and -0.0 among the special values, layouts), sort (its
unstable default), argsort.stable and topk (largest and smallest, k = 0 and all, NaN).

Backplane's order is stable whatever `stable` says; PyTorch's unstable sort and its topk
leave the order of equal elements unspecified, and differ from the stable order on long
lines with ties. The indices of such ties are the `sort-ties` difference
(differences.py), exercised by the `documented` cases below; the other cases of the unstable
ops have no ties (normal values of a floating dtype)."""

from harness import ALL, FLOATS, Arg


class SortCases:
    """The `sorts` part of OpSetV2Cases (cases.Generator provides add and tensor)."""

    def sorts(self):
        layouts = ["contiguous", "transposed", "strided", "offset"]
        for i, dtype in enumerate(ALL):
            for j, (shape, dim, descending) in enumerate([([4, 9], 1, False), ([5, 3], 0, True),
                                                          ([2, 3, 4], -2, False), ([], 0, True),
                                                          ([0, 3], 1, False), ([30], 0, True)]):
                self.add("sort.stable", "v2", [
                    ("self", self.tensor(dtype, shape, "special", layouts[(i + j) % 4])),
                    ("stable", Arg("bool", True)), ("dim", Arg("int", dim)),
                    ("descending", Arg("bool", descending))])
            self.add("argsort.stable", "v2", [
                ("self", self.tensor(dtype, [6, 7], "special")), ("stable", Arg("bool", True)),
                ("dim", Arg("int", -1)), ("descending", Arg("bool", i % 2 == 1))])
        for dtype in FLOATS:
            for shape, dim, descending in [([4, 9], 1, False), ([5, 6], 0, True)]:
                self.add("sort", "v2", [("self", self.tensor(dtype, shape, "normal")),
                                        ("dim", Arg("int", dim)),
                                        ("descending", Arg("bool", descending))])
            self.add("argsort", "v2", [("self", self.tensor(dtype, [5, 6], "normal")),
                                       ("dim", Arg("int", 0)), ("descending", Arg("bool", True))])
            for k, largest in [(3, True), (2, False), (0, True), (9, False)]:
                self.add("topk", "v2", [("self", self.tensor(dtype, [4, 9], "special")),
                                        ("k", Arg("int", k)), ("dim", Arg("int", 1)),
                                        ("largest", Arg("bool", largest)),
                                        ("sorted", Arg("bool", True))])
        # Long lines with ties: PyTorch's unstable order differs (sort-ties).
        for op, extra in [("sort", [("dim", Arg("int", 0)), ("descending", Arg("bool", False))]),
                          ("topk", [("k", Arg("int", 12)), ("dim", Arg("int", 0)),
                                    ("largest", Arg("bool", True)),
                                    ("sorted", Arg("bool", True))])]:
            self.add(op, "documented",
                     [("self", self.tensor("i32", [200], "small_int", "contiguous"))] + extra)
