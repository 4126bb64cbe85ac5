"""RoutePlan from the sequencer's parameters, and RouteRun's hand-overs, resumes and verdict (pure)."""

from __future__ import annotations

import numpy as np
import pytest

from sally_sequencer.campaign import CampaignTiming
from sally_sequencer.errors import SequenceError
from sally_sequencer.route_run import RouteRun, route_parameters, route_plan
from sally_sequencer.wall_stand import WALK_TO_STAND
from sally_sequencer.wall_walk import WallWalk

ALL_THE_WAY = dict(sequence="f2w_all", wall_walk=WALK_TO_STAND, stand=True, then="w2c", then_down=True, then_back=True)
"""The parameters of route:=floor,wall,ceiling,wall,floor (as the graph hands them to the sequencer)."""
TIMING = CampaignTiming(0.5, 3.0, 1.0)


def test_the_parameters_make_one_plan_of_every_campaign_the_route_runs():
    plan = route_plan(**ALL_THE_WAY)  # type: ignore[arg-type]
    assert plan.first.sequence == "f2w_all" and plan.first.walk == WallWalk("up", WALK_TO_STAND)
    assert plan.first.stand is not None and not plan.first.down
    assert plan.then is not None and plan.then.sequence == "w2c" and plan.then.down and plan.then.walk is None
    assert plan.back
    walk = route_plan("floor_walk", direction="left", distance=0.2).first.walk
    assert walk == WallWalk("left", 0.2, "floor")
    before = route_plan("f2w_all", floor_walk=0.3, down=True).first
    assert before.before == WallWalk("forward", 0.3, "floor") and before.down and route_plan("f2w").then is None


@pytest.mark.parametrize(
    "fields, message",
    [
        (dict(sequence="f2w_all", then="w2c"), "then:=w2c climbs from the stand under the ceiling: f2w_all"),
        (dict(sequence="f2w_all", then_walk=0.2), "then_walk:=0.2 walks after the 'then' climb: set then"),
        ({**ALL_THE_WAY, "then_down": False}, "then_back comes back down the wall after the 'then' climb's way down"),
        ({**ALL_THE_WAY, "then_walk": 0.1}, "then_down comes back down after the 'then' climb: set then, and no"),
        (dict(sequence="f2w", wall_walk=0.2), "f2w ends where no walk follows"),
        (dict(sequence="orbit"), "unknown sequence 'orbit'"),
    ],
)
def test_a_route_that_cannot_run_is_refused_in_one_line(fields, message):
    with pytest.raises(SequenceError, match=message):
        route_plan(**fields)


def test_a_route_hands_each_campaign_over_to_the_next_in_its_own_frame():
    run = RouteRun(route_plan(**ALL_THE_WAY), TIMING)  # type: ignore[arg-type]
    assert run.campaign.sequence == "f2w_all" and run.frame == "world" and run.next_due
    ended = run.hand_over(70.0)
    assert ended.sequence == "f2w_all" and run.first is ended
    assert run.campaign.sequence == "w2c" and run.frame == "corner" and run.campaign.down
    assert run.campaign.start_time == pytest.approx(70.5) and run.next_due  # the way back still to run
    second = run.hand_over(140.0)
    assert run.campaign.back and run.campaign.sequence == "f2w_all" and run.frame == "world"
    assert run.second is second and not run.next_due
    said = run.verdict("f2w_all done, then the way down: every foot held on the floor", True, "every foot held")
    assert said == "f2w_all done, then w2c done and back down, then the way back: every foot held"
    assert run.verdict("it fell", False, "every foot held") == "f2w_all done, then it fell"


def test_a_sequencer_started_mid_route_resumes_the_campaign_whose_frame_the_feet_come_in():
    feet = {"FL": np.zeros(3), "FR": np.ones(3)}
    run = RouteRun(route_plan(**{**ALL_THE_WAY, "then_back": False}), TIMING)  # type: ignore[arg-type]
    said = run.resume("corner", feet)
    assert run.campaign.sequence == "w2c" and run.then is None and not run.next_due
    assert said.startswith("resuming the route at its w2c climb (the IK plans in 'corner')")
    assert set(run.campaign.planted) == {"FL", "FR"}
    fresh = RouteRun(route_plan("f2w"), TIMING)
    assert fresh.resume("world", {}) == "" and not fresh.campaign.planted
    assert fresh.resume("world", feet) == "resuming the f2w run: ['FL', 'FR'] already planted on the wall"
    back = RouteRun(route_plan(**ALL_THE_WAY), TIMING)  # type: ignore[arg-type]
    back.resume("world", feet)  # the way up and the way back pass through the same stances
    assert back.campaign.failed and "does not resume" in back.campaign.message


@pytest.mark.parametrize(
    "parameters",
    [
        {"sequence": "f2w"},
        {"sequence": "wall_walk", "direction": "left", "distance": 0.2},
        {"sequence": "f2w_all", "floor_walk": 0.3, "down": True},
        ALL_THE_WAY | {"wall_walk": WALK_TO_STAND},
        {"sequence": "f2w_all", "wall_walk": WALK_TO_STAND, "stand": True, "then": "w2c", "then_walk": 0.2},
    ],
)
def test_a_plan_s_parameters_make_the_same_plan_again(parameters):
    assert route_parameters(route_plan(**parameters)) == parameters
