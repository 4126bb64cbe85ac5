"""benchmarks/fault_campaign.py's pure parts: the draws a seed gives, and a run judged against its
unfaulted one on every plant (a route's next climb's too) and the drift."""

import copy
import importlib.util
import math
import sys
from pathlib import Path

import pytest

from sally_testing import reference

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def campaign():
    spec = importlib.util.spec_from_file_location("fault_campaign", ROOT / "benchmarks" / "fault_campaign.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)  # no side effects: main() runs only as a script
    return module


def test_a_seed_draws_the_same_runs_over_the_whole_sequence(campaign):
    a, b = campaign.draws(12, 3, campaign.SEQUENCES), campaign.draws(12, 3, campaign.SEQUENCES)
    assert a == b and a != campaign.draws(12, 4, campaign.SEQUENCES)
    for draw in a:
        end = reference.load(draw.sequence)["sim_time_s"]
        assert 0.5 <= draw.at_s <= end - 0.5 and draw.node in campaign.NODES and draw.fault in campaign.FAULTS


@pytest.mark.parametrize("part", ["", "then"])
def test_a_run_is_held_to_its_unfaulted_run_on_every_plant(campaign, part):
    unfaulted = reference.load("route")
    same = campaign.judge(unfaulted, unfaulted, True, 0.3)
    assert same["finished"] and same["within"] and same["delta_mm"] == 0.0
    for moved, within in ((0.6, False), (0.15, True)):  # twice the band, half of it
        faulted = copy.deepcopy(unfaulted)
        plants = (faulted[part] if part else faulted)["plants"]
        plants[next(iter(plants))]["error_mm"] += moved
        judged = campaign.judge(faulted, unfaulted, True, 0.3)
        assert judged["within"] is within and math.isclose(judged["delta_mm"], moved, abs_tol=1e-9)
    assert not campaign.judge(unfaulted, unfaulted, False, 0.3)["finished"], "no verdict: not finished"


def test_the_fewest_holding_counts_the_runs_that_count_it(campaign):
    f2w = campaign.judge(reference.load("f2w"), reference.load("f2w"), True, 0.3)
    route = campaign.judge(reference.load("route"), reference.load("route"), True, 0.3)
    assert f2w["holding"] is None and route["holding"] >= 3
    assert campaign.fewest_holding([f2w, route]) == route["holding"]
    assert math.isnan(campaign.fewest_holding([f2w]))
    fell = {**route, "finished": False, "holding": 2}
    assert campaign.fewest_holding([f2w, route, fell]) == 2
