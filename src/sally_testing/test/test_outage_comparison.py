"""The outage cases' last check: the faulted run's report against the unfaulted run's (the f2w
reference). It passes the reference itself and fails a run that relifts FL, plants 0.5 mm worse,
finishes late or whose stamps went back."""

import copy
from collections import Counter
from types import SimpleNamespace

import pytest

from sally_testing import reference
from sally_testing.faults.cases import NS, Check, against_the_unfaulted_run


class Ran:
    """What the comparison reads of a graph: its report and the NaN watch's stamps gone back."""

    def __init__(self, report, went_back=None):
        self._report = report
        back = Counter(went_back or {})
        self.nan = SimpleNamespace(went_back=back, first_back={t: (2 * NS, NS) for t in back})

    def report(self):
        return self._report


def compared(report, went_back=None, outage_s=10.0):
    check = Check("outage")
    against_the_unfaulted_run(check, Ran(report, went_back), outage_s)
    return check


def test_the_unfaulted_run_itself_passes():
    check = compared(reference.load("f2w"))
    assert check.failure is None, check.details


def relifted(report):
    report["phases"].append({"foot": "FL", "phase": "LIFT", "start_s": 25.0, "duration_s": 3.0})


def planted_worse(report):
    report["plants"]["FR"]["error_mm"] += 1.0  # twice the band, still inside the 2 mm goal


def late(report):
    report["sim_time_s"] += 16.0  # past the outage (10 s) and the slack


@pytest.mark.parametrize(
    ("change", "named"), [(relifted, "lifted once"), (planted_worse, "FR planted"), (late, "finished")]
)
def test_a_run_that_lost_something_fails(change, named):
    report = copy.deepcopy(reference.load("f2w"))
    change(report)
    check = compared(report)
    assert check.failure is not None and named in check.failure, check.details


def test_a_stamp_that_went_back_fails():
    check = compared(reference.load("f2w"), went_back={"/joint_states": 1})
    assert check.failure is not None and "went back" in check.failure
