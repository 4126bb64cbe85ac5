"""The outage cases' last check: the faulted run's report against the unfaulted run's (the f2w
reference). It passes the reference itself and fails a run that relifts FL, plants twice the band
worse, finishes late, pitches its body or lengthens a phase no outage fell in, or whose stamps went
back."""

import copy
from collections import Counter
from types import SimpleNamespace

import pytest

from sally_bringup.report import PLANT_GOAL_MM
from sally_testing import reference
from sally_testing.faults.cases import NS, OUTAGE_BAND_MM, Check, against_the_unfaulted_run


class Ran:
    """What the comparison reads of a graph: its report and the NaN watch's stamps gone back."""

    def __init__(self, report, went_back=None):
        self._report = report
        back = Counter(went_back or {})
        self.nan = SimpleNamespace(went_back=back, first_back={t: (2 * NS, NS) for t in back})

    def report(self):
        return self._report


def compared(report, went_back=None, outage_s=10.0, outages=()):
    check = Check("outage")
    against_the_unfaulted_run(check, Ran(report, went_back), outage_s, outages=outages)
    return check


def test_the_unfaulted_run_itself_passes():
    check = compared(reference.load("f2w"))
    assert check.failure is None, check.details


def relifted(report):
    report["phases"].append({"foot": "FL", "phase": "LIFT", "start_s": 25.0, "duration_s": 3.0})


def planted_worse(report):
    report["plants"]["FR"]["error_mm"] += 2 * OUTAGE_BAND_MM  # twice the band


def late(report):
    report["sim_time_s"] += 16.0  # past the outage (10 s) and the slack


def phase_longer(report):
    report["phases"][3]["duration_s"] += 0.5  # FL's orient, no outage in it


def pitched(report):
    report["body_pitch_deg"] += 0.5


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (relifted, "lifted as often"),
        (planted_worse, "FR planted"),
        (late, "finished"),
        (phase_longer, "every phase as long"),
        (pitched, "pitched"),
    ],
)
def test_a_run_that_lost_something_fails(change, named):
    report = copy.deepcopy(reference.load("f2w"))
    change(report)
    check = compared(report)
    assert check.failure is not None and any(named in d for d in check.details if d.startswith("FAILED")), check.details


def test_a_phase_an_outage_fell_in_may_be_longer_by_it_and_no_more():
    report = copy.deepcopy(reference.load("f2w"))
    row = report["phases"][6]  # FR's swing
    outage = (row["start_s"] + 0.5, row["start_s"] + 3.5)
    row["duration_s"] += 2.9
    assert compared(report, outages=[outage]).failure is None
    row["duration_s"] += 0.5  # past its 3 s outage
    assert "every phase as long" in (compared(report, outages=[outage]).failure or "")


def test_a_stamp_that_went_back_fails():
    check = compared(reference.load("f2w"), went_back={"/joint_states": 1})
    assert check.failure is not None and "went back" in check.failure


@pytest.mark.parametrize(("times", "fails"), [(2.0, True), (-2.0, True), (0.5, False), (-0.5, False)])
@pytest.mark.parametrize("figure", ["FL", "FR", "drift"])
def test_the_band_fails_a_figure_moved_by_twice_it_and_passes_one_moved_by_half(figure, times, fails):
    """Well past the band and well inside it, either way, never at its edge (where float rounding
    decides)."""
    report = copy.deepcopy(reference.load("f2w"))
    if figure == "drift":
        report["stance_drift_mm"] += times * OUTAGE_BAND_MM
    else:
        report["plants"][figure]["error_mm"] += times * OUTAGE_BAND_MM
    check = compared(report)
    assert (check.failure is not None) == fails, check.details


def test_a_figure_moved_down_by_twice_the_band_fails_on_the_band_alone():
    """Moved down, a figure stays within its goal (a plant below zero is no robot's, but no goal
    fails it): the band is what fails it, and the failure names the band. (Moved up by twice a
    1.0 mm band, a plant passes its 2 mm goal too, so that direction cannot tell the band's work
    from the goal's.)"""
    report = copy.deepcopy(reference.load("f2w"))
    report["plants"]["FR"]["error_mm"] -= 2 * OUTAGE_BAND_MM
    assert report["plants"]["FR"]["error_mm"] < PLANT_GOAL_MM
    check = compared(report)
    assert check.failure is not None and f"band +-{OUTAGE_BAND_MM}" in check.failure, check.details
