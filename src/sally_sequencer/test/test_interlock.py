"""The magnet interlock: off the floor, no magnet goes off with fewer than three others holding."""

from sally_description.scene import FACING_UP
from sally_sequencer.interlock import MIN_HOLDING, release_refusal

ON_WALL = {foot: (True, "wall", True) for foot in ("FL", "FR", "BL", "BR")}


def test_on_the_wall_a_foot_may_let_go_while_three_hold():
    assert MIN_HOLDING == 3
    assert release_refusal(ON_WALL, {"BL": False}, FACING_UP) is None


def test_on_the_wall_with_a_magnet_failed_no_other_may_let_go():
    failed = {**ON_WALL, "BR": (False, "wall", True)}
    refusal = release_refusal(failed, {"FL": False}, FACING_UP)
    assert refusal == (
        "FL magnet off refused: it would leave 2 magnets holding (BL, FR) with no foot on the floor (at least 3)"
    )
    going_on = {"FL": False, "BR": True}  # a magnet going on does not hold yet
    assert release_refusal(failed, going_on, FACING_UP) is not None


def test_a_foot_off_its_plate_does_not_hold():
    lifted = {**ON_WALL, "BR": (True, "wall", False)}
    assert "2 magnets holding" in release_refusal(lifted, {"BL": False}, FACING_UP)
    under = {**ON_WALL, "FL": (True, "ceiling", True), "FR": (True, "ceiling", True)}  # w2c's front feet up
    assert release_refusal(under, {"BL": False}, FACING_UP) is None  # the ceiling holds as the wall does


def test_a_foot_on_the_floor_lets_any_magnet_go():
    """The floor carries her: f2w's lifts with magnets:=FL,FR (two holding), the back feet's lifts in f2w_all."""
    two = {foot: (foot in ("FL", "FR"), "floor", True) for foot in ("FL", "FR", "BL", "BR")}
    assert release_refusal(two, {"FL": False}, FACING_UP) is None
    back = {**ON_WALL, "BR": (True, "floor", True)}
    assert release_refusal(back, {"BR": False}, FACING_UP) is None


def test_switching_on_is_never_refused_and_nothing_goes_off_before_telemetry():
    assert release_refusal({}, {"FL": True}, FACING_UP) is None
    assert release_refusal({}, {}, FACING_UP) is None
    assert "no magnet telemetry yet" in release_refusal({}, {"FL": False}, FACING_UP)
