"""The fault matrix (sally_testing.faults.cases), case by case: real node processes on their own
loopback domain, killed, fed bad input, given bad parameters and absurd physics, interrupted.
``benchmarks/faults.py`` runs the same cases and prints what happened.

``SALLY_FAULT_HOLD`` (sim seconds a killed node stays down, default 10) trims the kill cases.
"""

import os

import pytest

from sally_testing.faults.cases import CASES

pytestmark = pytest.mark.graph  # real graphs, in processes or hosted in this process

HOLD = float(os.environ.get("SALLY_FAULT_HOLD", "10"))


@pytest.mark.parametrize("name", [name for name in CASES if name != "hygiene"])
def test_fault_case(name, tmp_path):
    results = CASES[name](tmp_path, {"hold": HOLD})
    assert results, f"{name} judged nothing"
    failed = [r for r in results if not r.passed]
    assert not failed, "\n".join(r.line() + "".join(f"\n    {d}" for d in r.details) for r in failed)
