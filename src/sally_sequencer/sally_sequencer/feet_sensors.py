"""FeetSensors: the feet's range and contact readings as the sequencer hears them, and the ones the
tick under way reads. Pure Python."""

from __future__ import annotations

from dataclasses import dataclass, field

from sally_description.constants import LEGS
from sally_node_common.inputs import StampOrder
from sally_node_common.stamped_readings import StampedReadings


def _range_orders() -> dict[str, StampOrder]:
    return {foot: StampOrder(f"{foot}'s range reading") for foot in LEGS}


@dataclass
class FeetSensors:
    """Each foot's ("range", foot) and ("contact", foot) readings by stamp (m; 1.0 for contact), the
    order each foot's range readings must come in, which sensors were heard at least once, and the
    readings of the tick under way (what the campaign reads)."""

    readings: StampedReadings = field(default_factory=StampedReadings)
    range_orders: dict[str, StampOrder] = field(default_factory=_range_orders)
    heard: set[str] = field(default_factory=set)
    """The feet's sensors ("range", "contact") heard at least once. The magnet telemetry (the contact
    readings) is always waited for: the interlock knows nothing without it; the range sensors from
    their first reading on (a robot without them is not waited for)."""
    tick: tuple[dict[str, float], dict[str, bool]] = ({}, {})
    """The tick under way's range (m; nan: none) and contact reading of each foot."""

    def range_of(self, foot: str) -> float:
        """``foot``'s range reading for the tick under way (m; nan: none)."""
        return self.tick[0][foot]

    def contact_of(self, foot: str) -> bool:
        """Whether ``foot``'s contact sensor says contact for the tick under way."""
        return self.tick[1][foot]
