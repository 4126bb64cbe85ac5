"""The sequencer node distrusts a contact reading its range sensor contradicts (a real node
process over loopback DDS; the test publishes as the robot's drivers would)."""

import pytest
from diagnostic_msgs.msg import DiagnosticArray
from sensor_msgs.msg import Range

from sally_description.constants import LEGS
from sally_interfaces.msg import MagnetArray, MagnetState
from sally_node_common.qos import KEPT

pytestmark = [pytest.mark.graph, pytest.mark.timeout(120)]


def stamped(msg, ns):
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(ns, 1_000_000_000)
    return msg


def distrusted(diag) -> int:
    for msg in reversed(diag.messages):
        for status in msg.status:
            if status.name.startswith("sally_sequencer"):
                return int({kv.key: kv.value for kv in status.values}.get("contact_readings_distrusted", "0"))
    return -1


def test_a_contact_reading_with_the_face_far_off_any_surface_is_distrusted_and_counted(graph, probe):
    graph.start("sequencer", "sally_sequencer", {"diagnostics_period": 0.2})
    diag = probe.record(DiagnosticArray, "/diagnostics")
    magnets = probe.publisher(MagnetArray, "/sally/magnets", KEPT)
    ranges = {leg: probe.publisher(Range, f"/sally/feet/{leg}/range") for leg in LEGS}
    for publisher in (magnets, *ranges.values()):
        probe.wait_for_subscribers(publisher, timeout=30.0)
    probe.wait_for(lambda: distrusted(diag) == 0, 30.0, "the sequencer's diagnostics")
    for k in range(1, 4):
        for leg, publisher in ranges.items():  # FL's face 60 mm off anything; the others on their plates
            publisher.publish(stamped(Range(range=0.06 if leg == "FL" else 0.0, max_range=0.2), k * 20_000_000))
    said = MagnetArray(magnets=[MagnetState(foot=leg, enabled=True, contact_sensed=True) for leg in LEGS])
    stamp = [80_000_000]

    def told() -> bool:  # telemetry again (newer) until the ranges, on their own topics, are in too
        stamp[0] += 20_000_000
        magnets.publish(stamped(said, stamp[0]))
        return distrusted(diag) >= 1

    probe.wait_for(told, 15.0, "FL's contact reading distrusted on /diagnostics")
    assert "FL's contact reading says contact, its range sensor a face 60 mm off: distrusted" in graph.logs()
