"""One home for what success means: the sequencer and the run report judge with these."""

from sally_sequencer.climb import MIN_PITCH_DEG
from sally_sequencer.plan_catalogue import SEQUENCES
from sally_sequencer.verdict import feet_to_plant, held_on, pitched_enough


def test_each_campaign_plants_the_feet_of_its_wall_stages():
    assert feet_to_plant("f2w") == ("FL", "FR")
    assert feet_to_plant("f2w_fr") == ("FR",)
    assert feet_to_plant("f2w_all") == ("FL", "FR", "BL", "BR")
    assert feet_to_plant("orient") == () and feet_to_plant("no such campaign") == ()
    scenarios = [name for name, entry in SEQUENCES.items() if entry.scenario]
    assert scenarios == ["wall_hold", "floor_lift"]  # wall_hold's stage plants FL, but a scenario is judged by costs
    assert all(feet_to_plant(s) == () for s in scenarios)


def test_a_planted_foot_is_held_only_with_its_magnet_on_against_the_wall_in_contact():
    assert held_on(True, "wall", True, "wall")
    assert not held_on(False, "wall", True, "wall")
    assert not held_on(True, "floor", True, "wall")
    assert not held_on(True, "wall", False, "wall")
    assert held_on(True, "ceiling", True, goal="ceiling") and not held_on(True, "wall", True, goal="ceiling")


def test_a_climb_ends_pitched_at_least_the_minimum():
    assert pitched_enough(MIN_PITCH_DEG) and pitched_enough(89.0)
    assert not pitched_enough(MIN_PITCH_DEG - 0.01) and not pitched_enough(None)


def test_a_walk_falls_short_when_the_body_went_less_than_its_distance_less_the_tolerance():
    import numpy as np

    from sally_sequencer.verdict import walk_shortfall
    from sally_sequencer.wall_walk import WALK_TOLERANCE, WallWalk

    walk = WallWalk("left", 0.30)
    assert walk_shortfall(walk, np.array([0.0, 0.30 - WALK_TOLERANCE, 0.0])) == ""
    assert walk_shortfall(walk, np.array([0.0, 0.2924, 0.05])) == ""  # only the way it walks counts
    short = walk_shortfall(walk, np.array([0.0, 0.25, 0.0]))
    assert short == "the body went 250.0 mm left, not 300 mm (within 20 mm)"
