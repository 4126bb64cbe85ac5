"""Sally's phase logic (sequences, runner, campaign): no ROS and no MuJoCo calls in the core."""

from sally_node_common.ik_target import IKTarget

from .campaign import CAMPAIGNS, Campaign, CampaignStatus, FootReading, Tick
from .catalogue import SEQUENCE_FEET, make_sequence
from .errors import SequenceError
from .phase import Phase, PhaseContext
from .runner import RunnerStatus, SequenceRunner

__all__ = [
    "CAMPAIGNS",
    "Campaign",
    "CampaignStatus",
    "FootReading",
    "IKTarget",
    "Phase",
    "PhaseContext",
    "RunnerStatus",
    "SEQUENCE_FEET",
    "SequenceError",
    "SequenceRunner",
    "Tick",
    "make_sequence",
]
