"""Sally's phase logic (sequences, runner, campaign): no ROS and no MuJoCo calls in the core."""

from sally_node_common.ik_target import IKTarget

from .campaign import Campaign, CampaignStatus, FootReading, Tick
from .catalogue import SEQUENCE_FEET, make_sequence
from .errors import SequenceError
from .phase import Ending, Phase, PhaseContext
from .plan import CampaignPlan
from .plan_catalogue import SEQUENCES, SequenceSpec
from .runner import RunnerStatus, SequenceRunner

__all__ = [
    "Campaign",
    "CampaignPlan",
    "CampaignStatus",
    "Ending",
    "FootReading",
    "IKTarget",
    "Phase",
    "PhaseContext",
    "RunnerStatus",
    "SEQUENCES",
    "SEQUENCE_FEET",
    "SequenceError",
    "SequenceRunner",
    "SequenceSpec",
    "Tick",
    "make_sequence",
]
