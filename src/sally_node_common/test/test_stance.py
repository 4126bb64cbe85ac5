"""The one stance-mode enum says what the messages say."""

from sally_interfaces.msg import IKTarget
from sally_node_common.stance import HELD, StanceMode


def test_the_enum_is_the_message_constants():
    assert {mode.name: int(mode) for mode in StanceMode} == {
        "SWING": IKTarget.SWING,
        "POSITION": IKTarget.POSITION,
        "POSE": IKTarget.POSE,
    }


def test_floor_and_wall_hold_a_foot_swing_does_not():
    assert HELD == {StanceMode.POSITION, StanceMode.POSE} and StanceMode.SWING not in HELD
