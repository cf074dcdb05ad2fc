"""The reference backend against PyTorch 1.13.1 itself (Debian's python3-torch), op by op.

Every op and overload of the catalog runs on seeded cases (cases.py, training_cases.py) on
reference:0, through bp_reference_eval, and on PyTorch's CPU, which computes the expected
outputs now, from the same bits. Dtype, shape and every element must agree: exactly wherever
PyTorch is exact (compare.py). Where both raise, they agree. Every other disagreement fails,
unless one of the deliberate differences of differences.py explains it; those are listed in
docs/ops.md, and each must still be exercised. Run through ctest (it sets BP_REFERENCE_EVAL):
    ctest --preset default -R differential --output-on-failure
"""

import collections
import subprocess
import warnings

import pytest

from cases import all_cases
from compare import compare_outputs, upcast_args
from differences import KNOWN_DIFFERENCES, explain_element, explain_error
from harness import evaluator_path, run_reference, run_torch

CASES = all_cases()
OPS = sorted({c.op for c in CASES})


def check_case(case, torch_out, ref_out, explained):
    """The unexplained disagreements of one case (strings); explained ones are counted."""
    torch_failed, ref_failed = isinstance(torch_out, Exception), isinstance(ref_out, str)
    if torch_failed and ref_failed:
        return []
    if torch_failed or ref_failed:
        name = explain_error(case, torch_out, ref_out)
        if name is None:
            if torch_failed:
                return [f"PyTorch raises '{str(torch_out).splitlines()[0]}', the reference "
                        f"returns a result"]
            return [f"the reference raises '{ref_out}', PyTorch returns a result"]
        explained[name] += 1
        if name != "half-kernels":
            return []
        # No half kernel in PyTorch's CPU build: its f32 result, rounded to the dtype.
        want = run_torch(case, upcast_args(case))
        if isinstance(want, Exception):
            return [f"PyTorch in f32 raises '{str(want).splitlines()[0]}'"]
        torch_out = [w.to(g.dtype) for w, g in zip(want, ref_out)]
    problems, elements = compare_outputs(case, ref_out, torch_out, explain_element)
    for name, _ in elements:
        explained[name] += 1
    return problems


@pytest.fixture(scope="session")
def outcome():
    """Runs every case once: per op, its unexplained disagreements; and how many cases or
    elements each known difference explained."""
    ref = run_reference(CASES)
    failures = collections.defaultdict(list)
    explained = collections.Counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case in CASES:
            for problem in check_case(case, run_torch(case), ref[case.id], explained):
                failures[case.op].append(f"{case.id} {case.describe()}: {problem}")
    return failures, explained


@pytest.mark.parametrize("op", OPS)
def test_op_matches_pytorch(op, outcome):
    failures = outcome[0][op]
    assert not failures, f"{len(failures)} disagreement(s) with PyTorch:\n" + \
        "\n".join(failures[:15])


def test_every_known_difference_is_exercised(outcome):
    explained = outcome[1]
    unused = [d.name for d in KNOWN_DIFFERENCES if explained[d.name] == 0]
    assert not unused, f"known differences that explain nothing any more (remove them here " \
        f"and in docs/ops.md): {unused}"
    print("\nknown differences:", dict(explained))


def test_every_op_of_the_catalog_has_cases():
    listed = subprocess.run([evaluator_path(), "--list-ops"], capture_output=True, text=True,
                            check=True).stdout.split()
    missing = sorted(set(listed) - set(OPS))
    assert not missing, f"ops of the catalog with no differential case: {missing}"
