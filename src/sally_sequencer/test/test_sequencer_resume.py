"""A sequencer (re)started in the middle of a route resumes the climb the IK plans in: foot states
already in the next climb's frame (the first climb was done, the IK moved there) start that climb,
its planted feet kept, its ticks in that frame. (It used to start the first climb, ticking in the
floor-wall corner's frame, which moved the IK back there with the feet on the ceiling.)"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from rclpy.node import Node

from sally_interfaces.msg import FootStates, MagnetArray, MagnetCommand
from sally_interfaces.msg import IKTarget as IKTargetMsg
from sally_node_common.foot_states_msg import FootStateData, foot_states_to_msg
from sally_node_common.magnet_array_msg import MagnetReadingData, magnet_array_to_msg
from sally_node_common.qos import KEPT, RELIABLE_DEEP
from sally_node_common.stance import StanceMode

pytestmark = pytest.mark.timeout(120)

ROUTE = {"sequence": "f2w_all", "then": "w2c", "wall_walk": 0.17, "stand": True, "duration": 300.0}
"""The sequencer's parameters in ``route:=floor,wall,ceiling`` (the graph's, less the timing)."""
# where the feet and hips are, in the corner's frame: FL and FR on its wall (the room's ceiling), BL
# and BR on its floor (the room's wall), as w2c leaves them after its front feet
FEET = {"FL": (0.49, 0.08, 0.41), "FR": (0.49, -0.08, 0.41), "BL": (-0.18, 0.22, 0.009), "BR": (-0.18, -0.22, 0.009)}
HIPS = {"FL": (0.13, 0.08, 0.25), "FR": (0.13, -0.08, 0.25), "BL": (-0.13, 0.08, 0.25), "BR": (-0.13, -0.08, 0.25)}


class IK(Node):
    """Stands in for the IK (sends foot states, hears the ticks) and the sim (hears the magnet
    commands, sends the magnets' telemetry: every magnet on and its contact sensed)."""

    def __init__(self, **kwargs) -> None:
        super().__init__("fake_ik", **kwargs)
        self.feet = self.create_publisher(FootStates, "/sally/foot_states", KEPT)
        self.magnets = self.create_publisher(MagnetArray, "/sally/magnets", KEPT)
        self.ticks: list[IKTargetMsg] = []
        self.create_subscription(IKTargetMsg, "/sally/ik_target", self.ticks.append, KEPT)
        self.create_subscription(MagnetCommand, "/sally/magnet_cmd", lambda _: None, RELIABLE_DEEP)

    def send(self, stamp: int, frame: str) -> None:
        held = [MagnetReadingData(leg, True, 50.0, True) for leg in FEET]
        self.magnets.publish(magnet_array_to_msg(stamp, held))
        wall = StanceMode.POSE
        feet = {
            leg: FootStateData(
                np.array(FEET[leg]),
                np.array([1.0, 0.0, 0.0, 0.0]),
                np.array(HIPS[leg]),
                wall if leg in ("FL", "FR") else StanceMode.POSITION,
                True,
                0.0,
                0.0,
            )
            for leg in FEET
        }
        self.feet.publish(foot_states_to_msg(stamp, feet, frame))


def _wait(predicate, timeout: float = 30.0) -> bool:
    end = time.monotonic() + timeout
    while not predicate() and time.monotonic() < end:
        time.sleep(0.01)
    return bool(predicate())


@contextmanager
def sequencer_beside_an_ik(ros_domain: int, parameters: dict) -> Iterator[tuple[IK, object]]:
    """A sequencer with ``parameters`` and the stand-in IK on one executor, spinning, its outputs
    matched to the IK: (ik, sequencer)."""
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter
    from rclpy.signals import SignalHandlerOptions

    from sally_node_common.host import Host
    from sally_sequencer.node import SequencerNode

    context = rclpy.Context()
    rclpy.init(args=[], context=context, domain_id=ros_domain, signal_handler_options=SignalHandlerOptions.NO)
    executor = SingleThreadedExecutor(context=context)
    spin = threading.Thread(target=lambda: _spin(executor, context), daemon=True)
    try:
        host = Host()
        ik = host.create(IK, context=context)
        overrides = [Parameter(k, value=v) for k, v in parameters.items()]
        sequencer = host.create(SequencerNode, context=context, parameter_overrides=overrides)
        for node in (ik, sequencer):
            executor.add_node(node)
        spin.start()
        assert _wait(lambda: sequencer._gate.open), "the sequencer's outputs never reached the fake IK"
        yield ik, sequencer
    finally:
        context.try_shutdown()
        if spin.is_alive():
            spin.join(timeout=5.0)


def _spin(executor, context) -> None:
    while context.ok():
        try:
            executor.spin_once(timeout_sec=0.02)
        except Exception:  # noqa: BLE001 - shut down under us
            return


@pytest.mark.parametrize(
    ("frame", "climb"),
    [("corner", "w2c"), ("world", "f2w_all")],  # after the hand-over; during the first climb
)
def test_a_sequencer_started_mid_route_resumes_the_climb_the_ik_is_in(ros_domain, frame, climb):
    with sequencer_beside_an_ik(ros_domain, ROUTE) as (ik, sequencer):
        for k in range(3):
            ik.send(150_000_000_000 + k * 5_000_000, frame)
        assert _wait(lambda: len(ik.ticks) >= 3), f"{len(ik.ticks)} ticks"
        assert sequencer.campaign.sequence == climb
        assert sorted(sequencer.campaign.planted) == ["FL", "FR"]
        assert {t.header.frame_id for t in ik.ticks} == {frame}  # never the other corner's
        first = dict(zip(ik.ticks[0].stance_feet, ik.ticks[0].stance_modes))
        assert StanceMode(first["FL"]) is StanceMode(first["FR"]) is StanceMode.POSE  # planted stay planted


def test_a_sequencer_restarted_on_the_wall_of_a_round_trip_stops_without_a_move(ros_domain):
    """``floor,wall,ceiling,wall,floor`` passes the first climb's stances on the way up and on the
    way back: feet found planted in its frame cannot say which, so nothing is resumed."""
    trip = {**ROUTE, "then_down": True, "then_back": True, "exit_when_done": False}
    with sequencer_beside_an_ik(ros_domain, trip) as (ik, sequencer):
        for k in range(3):
            ik.send(150_000_000_000 + k * 5_000_000, "world")
        assert _wait(lambda: sequencer.finished.is_set()), "the sequencer never ended the run"
        assert sequencer.campaign.failed and "does not resume" in sequencer.campaign.message
        assert not sequencer.succeeded
        assert all(not tick.foot for tick in ik.ticks)  # no foot was ever sent anywhere


def test_foot_states_replayed_after_a_silence_are_old_not_a_new_sim_and_a_new_sim_s_are(ros_domain):
    """A sequencer hung and continued is sent the IK's kept foot states again when the two match
    anew: stamps a little older than its newest, after a silence. They are out of order (counted as
    replayed), not a new sim: CI's hang_sequencer once started its run again on one 30 ms old and then
    refused FR's magnet off for want of telemetry. A new sim's foot states, from t = 0, are one."""
    from sally_sequencer.node import FEET_TOPIC

    with sequencer_beside_an_ik(ros_domain, {**ROUTE, "exit_when_done": False}) as (ik, sequencer):
        order, wall = sequencer.shell.orders[FEET_TOPIC], [1000.0]
        order._clock = lambda: wall[0]  # the silence, without waiting for it
        newest = 150_000_000_000 + 2 * 5_000_000
        for k in range(3):
            ik.send(150_000_000_000 + k * 5_000_000, "world")
        assert _wait(lambda: order.latest == newest), "the foot states were never stepped"
        wall[0] += 10.0  # silent 10 s (hung), far past NEW_TIMELINE_GAP
        ik.send(newest - 30_000_000, "world")  # the kept history: 30 ms older
        assert _wait(lambda: sequencer.shell.health.replayed[FEET_TOPIC] + sequencer.shell.health.total > 0)
        assert sequencer.shell.counts["restarts"] == 0 and order.latest == newest
        wall[0] += 10.0
        ik.send(5_000_000, "world")  # a new sim's first foot states
        assert _wait(lambda: sequencer.shell.counts["restarts"] == 1), "a new sim's foot states started nothing"


FLOOR = {"FL": (0.18, 0.22, 0.009), "FR": (0.18, -0.22, 0.009), "BL": (-0.18, 0.22, 0.009), "BR": (-0.18, -0.22, 0.009)}
"""Every foot on the floor (the f2w start's stance), the hips above them."""


def _ticks_of(ros_domain: int, journal, stamps) -> list[tuple]:
    """The ticks a sequencer with ``journal`` sends for foot states at ``stamps`` (the feet standing
    on the floor): (stamp, stance, foot, target position, phase) each."""
    parameters = {"sequence": "f2w", "duration": 60.0, "exit_when_done": False, "journal": str(journal)}
    with sequencer_beside_an_ik(ros_domain, parameters) as (ik, _):
        for stamp in stamps:
            held = [MagnetReadingData(leg, True, 50.0, True) for leg in FLOOR]
            ik.magnets.publish(magnet_array_to_msg(stamp, held))
            feet = {
                leg: FootStateData(
                    np.array(FLOOR[leg]),
                    np.array([1.0, 0.0, 0.0, 0.0]),
                    np.array(HIPS[leg]),
                    StanceMode.POSITION,
                    True,
                    0.0,
                    0.0,
                )  # fmt: skip
                for leg in FLOOR
            }
            ik.feet.publish(foot_states_to_msg(stamp, feet, "world"))
        assert _wait(lambda: ik.ticks and ik.ticks[-1].header.stamp.nanosec == stamps[-1] % 1_000_000_000 + 5_000_000)
        return [
            (
                t.header.stamp.sec * 10**9 + t.header.stamp.nanosec,
                tuple(zip(t.stance_feet, t.stance_modes)),
                t.foot,
                (t.position.x, t.position.y, t.position.z),
                t.phase,
            )
            for t in ik.ticks
        ]


def test_a_sequencer_started_again_on_its_journal_goes_on_where_the_last_one_stood(ros_domain, tmp_path):
    """The steps before a restart are taken again from the journal, publishing nothing, and the
    restarted sequencer's ticks are those of a sequencer that never stopped: the same phase, its
    start, the foot's home and target to the bit (FL lifting, 0.75 s into its lift)."""
    stamps = [450_000_000 + k * 5_000_000 for k in range(300)]  # FL's LIFT from 0.5 s
    whole = _ticks_of(ros_domain, tmp_path / "whole.journal", stamps)
    before = _ticks_of(ros_domain, tmp_path / "cut.journal", stamps[:150])
    after = _ticks_of(ros_domain, tmp_path / "cut.journal", stamps[150:])
    assert len(whole) == 300 and len(before) == 150 and len(after) == 150  # nothing sent for the steps taken again
    assert before == whole[:150]
    assert after == whole[150:], "the restarted sequencer planned anew"
    assert {t[4] for t in after} == {"LIFT"} and len({t[3] for t in after}) == 150  # FL lifting all along
