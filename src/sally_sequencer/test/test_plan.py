"""The plan's catalogue (one list of sequences, typed facts) and CampaignPlan (what a campaign runs,
refused before it starts), and the completion rules the phases carry."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sally_sequencer.campaign import Campaign
from sally_sequencer.catalogue import SEQUENCE_FEET, make_sequence
from sally_sequencer.descent import SEQUENCE_FEET as DESCENT_FEET
from sally_sequencer.descent import make_descent
from sally_sequencer.errors import SequenceError
from sally_sequencer.phase import Ending
from sally_sequencer.plan import CampaignPlan
from sally_sequencer.plan_catalogue import CLIMBS, SEQUENCES, climb_of, frame_of, scene_of, spec
from sally_sequencer.route import campaigns_of, plan
from sally_sequencer.wall_stand import WallStand
from sally_sequencer.wall_walk import SURFACES, WallWalk, wall_step
from sally_sequencer.way_back import WALK_DOWN

SRC = Path(__file__).resolve().parents[2]


def test_the_catalogue_s_facts_say_what_each_sequence_is():
    climbs = {name for name, entry in SEQUENCES.items() if entry.climbs}
    walks = {name for name, entry in SEQUENCES.items() if entry.walks}
    assert climbs == {"f2w_all", "w2c"} and walks == {"wall_walk", "floor_walk"}
    assert {name for name, entry in SEQUENCES.items() if entry.ends_on_wall} == {"f2w_all", "w2c", "wall_walk"}
    assert CLIMBS == {("floor", "wall"): "f2w_all", ("wall", "ceiling"): "w2c"}
    assert climb_of(("wall", "ceiling")) == "w2c"
    with pytest.raises(SequenceError, match="no climb from the floor onto the ceiling; the climbs: floor->wall"):
        climb_of(("floor", "ceiling"))
    assert scene_of("w2c") == "corner3" and scene_of("f2w") == "floor_wall" and frame_of("w2c") == "corner"
    assert spec("f2w").feet_to_plant == ("FL", "FR") and spec("wall_hold").feet_to_plant == ()
    with pytest.raises(SequenceError, match=r"unknown sequence 'f2x'; valid: \['f2w', 'f2w_all'"):
        spec("f2x")


def test_every_stage_of_every_sequence_is_made_by_a_stage_sequence_or_a_walk():
    walk_stages = {"wall_shift", "wall_step", "floor_shift", "floor_step"}
    for name, entry in SEQUENCES.items():
        for who, stage in entry.stages:
            assert stage in walk_stages if entry.walks else make_sequence(stage), (name, stage)
            assert who in ("BODY", "FL", "FR", "BL", "BR")


def test_a_route_climbs_each_corner_with_the_catalogue_s_climb():
    from sally_description.scene import scene

    room = scene("room")
    assert campaigns_of(plan("floor,wall,ceiling", room), room) == ("f2w_all", "w2c")


def _name_lists(source: str, names: set[str]) -> list[int]:
    """Lines of ``source`` holding a literal tuple, list, set or dict keyed by two or more sequence names."""
    found = []
    for node in ast.walk(ast.parse(source)):
        items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", None)
        if not isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)) or items is None:
            continue
        strings = [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]
        if len(strings) >= 2 and len(strings) == len(items) and set(strings) <= names:
            found.append(node.lineno)
    return found


def test_no_module_but_the_catalogue_keeps_a_list_of_sequence_names():
    names = set(SEQUENCES)
    assert _name_lists('CLIMBS = ("f2w_all", "w2c", "wall_walk")\nx = {"f2w": 1, "w2c": 2}', names) == [1, 2]
    assert _name_lists('x = ("f2w", "FL")\ny = "f2w" in ("f2w",)', names) == []
    lists = {
        str(path.relative_to(SRC)): lines
        for path in SRC.rglob("*.py")
        if "test" not in path.parts and path.name != "plan_catalogue.py" and "build" not in path.parts
        for lines in [_name_lists(path.read_text(), names)]
        if lines
    }
    assert lists == {}


def test_a_plan_that_cannot_run_is_refused_in_one_line_that_says_why():
    up, floor = WallWalk("up", 0.2), WallWalk("forward", 0.2, "floor")
    refusals = {
        "the way back follows f2w_all's stand under the ceiling": dict(sequence="w2c", back=True),
        "wall_walk walks over the wall, not the floor": dict(sequence="wall_walk", walk=floor),
        "f2w ends where no walk follows: a walk follows f2w_all, w2c": dict(sequence="f2w", walk=up),
        "a stand follows a walk after a climb onto the wall": dict(sequence="f2w_all", stand=WallStand()),
        "not a walk over the wall before f2w_all": dict(sequence="f2w_all", before=up),
        r"the climb back down follows a climb with all four feet \(f2w_all, w2c\)": dict(sequence="f2w", down=True),
    }
    for message, fields in refusals.items():
        with pytest.raises(SequenceError, match=message):
            CampaignPlan(**fields)  # type: ignore[arg-type]
        with pytest.raises(SequenceError, match=message):  # the campaign refuses through its plan
            Campaign(**fields)  # type: ignore[arg-type]


def test_a_plan_fills_in_a_walk_s_default_and_the_way_back_s_own_walk():
    assert (
        CampaignPlan("wall_walk").walk == WallWalk()
        and CampaignPlan("floor_walk").walk == spec("floor_walk").default_walk
    )
    back = CampaignPlan("f2w_all", back=True)
    assert (
        back.walk is WALK_DOWN
        and back.down
        and back.stand is not None
        and set(back.stands) == {"wall_leave", "wall_gather"}
    )
    assert CampaignPlan("f2w_all").walk is None and CampaignPlan("f2w_all").stages() == tuple(
        (who, name, None) for who, name in spec("f2w_all").stages
    )


def test_the_campaign_runs_its_plan_s_stages_and_drops_the_walk_before_once_a_foot_is_planted():
    before = WallWalk("forward", 0.2, "floor")
    fresh = Campaign("f2w_all", before=before)
    assert fresh.stages == tuple((who, name) for who, name, _ in fresh.plan.stages())
    assert fresh.stages[0][1].startswith("floor_") and fresh.before is before
    resumed = Campaign("f2w_all", before=before, planted={"FL": [0.0, 0.0, 0.0]})
    assert resumed.before is None and resumed.stages == tuple((w, n) for w, n, _ in resumed.plan.stages(before=False))


def test_each_stage_s_end_is_typed_on_its_phases():
    ends = {name: [p.ends for p in make_sequence(name)] for name in SEQUENCE_FEET}
    assert ends["f2w"][-1] is Ending.PLANTED_AFTER_DWELL and ends["f2w_fr"][-1] is Ending.PLANTED_AFTER_DWELL
    assert ends["orient"][-1] is Ending.HOLDS and ends["lift"][-1] is Ending.HOLDS
    assert ends["step_bl"][-1] is Ending.STEPPED and ends["b2w_br"][-1] is Ending.PLANTED_AFTER_DWELL
    assert ends["body_climb"] == [None, None] and ends["body_square"] == [None]
    assert all(e is None for name in ends for e in ends[name][:-1])  # only a stage's last phase ends it
    assert wall_step([0, 0, 0])[-1].ends is Ending.PLANTED
    assert wall_step([0, 0, 0], plate=SURFACES["floor"])[-1].ends is Ending.STEPPED
    for name in DESCENT_FEET:
        last = make_descent(name)[-1]
        assert last.ends is (Ending.STEPPED if last.name == "DOWN_SEAT" else None), (name, last.name)
