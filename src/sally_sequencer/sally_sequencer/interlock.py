"""The magnet interlock: no magnet goes off while it would leave fewer than :data:`MIN_HOLDING`
magnets holding Sally off the floor.

Every plan keeps three magnets holding whenever no foot stands on the floor (a climb's last feet,
a walk on the wall or the ceiling): one foot moves at a time. The interlock holds the sequencer's
commands to that, against the magnet telemetry (/sally/magnets: each magnet on or off, and whether
it is against a plate) as last heard: a command that would switch magnets off with fewer than
:data:`MIN_HOLDING` others holding is refused, not sent, and the run stops there, failed, naming the
feet. A plan gone wrong (a magnet that failed, a restarted sequencer that misjudges what is planted)
then ends with Sally held where she is, not dropped. While a foot stands against a surface facing up
(the floor carries her) any magnet may go off. Before any telemetry nothing is known, and nothing
may go off. Pure: no ROS.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

MIN_HOLDING = 3
"""The fewest magnets that must hold (on and against a plate) after any magnet goes off, off the floor."""


def release_refusal(
    magnets: Mapping[str, tuple[bool, str, bool]], switches: Mapping[str, bool], floors: Collection[str]
) -> str | None:
    """Why the magnet ``switches`` (foot -> on) must not be sent, or None when they may.

    ``magnets``: foot -> (enabled, surface, in_contact), the latest telemetry (empty: none yet);
    ``floors``: the names of the surfaces facing up (a foot against one of them: Sally stands on the
    floor). Only switching off is ever refused."""
    off = sorted(foot for foot, on in switches.items() if not on)
    if not off:
        return None
    if not magnets:
        return f"{', '.join(off)} magnet off refused: no magnet telemetry yet (which magnets hold is not known)"
    if any(contact and surface in floors for _, surface, contact in magnets.values()):
        return None
    left = sorted(foot for foot, (on, _, contact) in magnets.items() if on and contact and foot not in off)
    if len(left) >= MIN_HOLDING:
        return None
    return (
        f"{', '.join(off)} magnet off refused: it would leave {len(left)} magnets holding "
        f"({', '.join(left) or 'none'}) with no foot on the floor (at least {MIN_HOLDING})"
    )
