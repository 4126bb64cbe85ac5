"""The pull-off rig node: the pull-off test driven over the sim's topics.

Sends, stamped ahead on sim time so that a lockstep run repeats exactly, the test foot's magnet
switch (``/sally/magnet_cmd``) and the pull ramp (``/sally_sim/external_force``) as soon as the sim
reads both; then follows its magnet's force on ``/sally/ground_truth/magnets`` (the bench's load
cell) through :class:`PullOffRig` and publishes the verdict
on ``/sally/pulloff_result`` (latched) and exits 0. Exits 1 if ``duration`` of sim time passes
without a verdict. The sim of this graph starts with no magnet on and the controller holds the
baked pose throughout (until a target comes, it holds the run's first state: the baked pose).
"""

from __future__ import annotations

import sys
import threading
from dataclasses import replace

import mujoco
import numpy as np
from rclpy.node import Node

from sally_description import LEGS, DescriptionError, PhysicsParams, build_model
from sally_interfaces.msg import ExternalForce, MagnetCommand, MagnetTruthArray, PullOffResult
from sally_node_common import StartupError, run_node, run_until_finished
from sally_node_common.external_force_msg import ExternalLoad, external_force_to_msg
from sally_node_common.inputs import InputError, StampOrder
from sally_node_common.magnet_command_msg import magnet_command_to_msg
from sally_node_common.magnet_truth_msg import magnet_truth_from_msg
from sally_node_common.node_shell import NodeShell
from sally_node_common.parameters import Param, ParameterTable
from sally_node_common.pulloff_result_msg import PullOffOutcome, pulloff_result_to_msg
from sally_node_common.qos import LATCHED, RELIABLE_DEEP
from sally_node_common.readiness import missing_readers
from sally_node_common.stamps import NS
from sally_node_common.wall_timers import wall_timer

from .pulloff_rig import Pull, PullOffRig, RigConfig
from .state_outputs import GROUND_TRUTH_MAGNETS

EXIT_NO_VERDICT = 1
SIM_NODE = "sally_sim"
"""The node that must read the rig's switch and ramp before it sends them."""
_RIG = RigConfig()
TABLE = ParameterTable(
    (
        Param("foot", _RIG.foot, "foot whose magnet is pulled off", choices=LEGS, read_only=True),
        Param("rate", _RIG.rate, "pull ramp", low=0.0, high=1e5, open_low=True, unit="N/s", read_only=True),
        Param(
            "gravity_settle",
            _RIG.gravity_settle,
            "time with every magnet off",
            low=0.0,
            high=1e6,
            unit="s of sim time",
            read_only=True,
        ),
        Param(
            "magnet_settle",
            _RIG.magnet_settle,
            "time with the test magnet on before the ramp",
            low=0.0,
            high=1e6,
            unit="s of sim time",
            read_only=True,
        ),
        Param(
            "detach_fraction",
            _RIG.detach_fraction,
            "detached below this fraction of max_force_per_wheel...",
            low=0.0,
            high=1.0,
            open_low=True,
            read_only=True,
        ),
        Param(
            "detach_hold",
            _RIG.detach_hold,
            "...sustained this long",
            low=0.0,
            high=1e6,
            unit="s of sim time",
            read_only=True,
        ),
        Param(
            "max_ramp_time",
            _RIG.max_ramp_time,
            "ramp time after which the test ends undetached",
            low=0.0,
            high=1e6,
            unit="s of sim time",
            read_only=True,
        ),
        Param(
            "stop_above_clip",
            _RIG.stop_above_clip,
            "end once the pull passes the clip with no drop under way",
            read_only=True,
        ),
        Param("params_file", "", "the sim's physics parameter file (for the clip)", read_only=True),
        Param(
            "duration", 90.0, "time after which the run fails", low=0.0, high=1e6, unit="s of sim time", read_only=True
        ),
    )
)
ARM_PERIOD = 0.01
"""Wall seconds between checks that the sim reads our commands."""
MAGNETS = GROUND_TRUTH_MAGNETS
"""The rig reads its magnet's force as a bench's load cell would: the world's truth."""


class PullOffNode(Node):
    """The pull-off rig node: pulls one foot off its plate over the sim's topics and publishes the result."""

    def __init__(self, **kwargs) -> None:
        super().__init__("sally_pulloff", **kwargs)
        self.shell = NodeShell(  # every parameter is read-only: a test is configured at its start
            self,
            TABLE,
            "sally_pulloff: rig",
            self._publish_diagnostics,
            watched=(MAGNETS,),
            orders={MAGNETS: StampOrder("magnets", gap=None)},  # a test cannot go on in a new sim
        )
        p = lambda name: self.get_parameter(name).value  # noqa: E731
        values = {
            name: float(p(name))
            for name in (
                "rate",
                "gravity_settle",
                "magnet_settle",
                "detach_fraction",
                "detach_hold",
                "max_ramp_time",
                "duration",
            )
        }
        duration = values.pop("duration")
        config = RigConfig(foot=p("foot"), stop_above_clip=bool(p("stop_above_clip")), **values)
        try:
            params = PhysicsParams.from_file(p("params_file")) if p("params_file") else PhysicsParams()
            model = build_model(params=params)
        except DescriptionError as exc:
            raise StartupError(str(exc)) from None
        weight = mujoco.mj_getTotalmass(model) * -model.opt.gravity[2]
        self.rig = PullOffRig(config, params.max_force_per_wheel, weight)
        self._duration_ns = round(duration * NS)
        self.finished = threading.Event()
        self.succeeded = False
        self.exit_when_done = True
        self._armed = False
        self._pub_magnets = self.create_publisher(MagnetCommand, "/sally/magnet_cmd", RELIABLE_DEEP)
        self._pub_force = self.create_publisher(ExternalForce, "/sally_sim/external_force", RELIABLE_DEEP)
        self._pub_result = self.create_publisher(PullOffResult, "/sally/pulloff_result", LATCHED)
        self.final_publishers = (self._pub_result,)
        self.create_subscription(MagnetTruthArray, MAGNETS, self._on_magnets, RELIABLE_DEEP)
        self._arm_timer = wall_timer(self, ARM_PERIOD, self._arm)
        self.get_logger().info(
            f"pull-off rig ready: {config.foot}, magnet on at {config.magnet_on_at:g} s, ramp {config.rate:g} N/s from "
            f"{config.ramp_start:g} s, clip {self.rig.clip:.1f} N, detached below {self.rig.threshold:.1f} N for "
            f"{config.detach_hold:g} s"
        )

    def _arm(self) -> None:
        """Once the sim reads both topics (another reader, the runner's recorder, matching first is
        not enough: :mod:`sally_node_common.readiness`): the magnet switch and the ramp, stamped
        for their times."""
        if self._armed:
            return
        for publisher in (self._pub_magnets, self._pub_force):
            topic = publisher.topic_name
            seen = {topic: [i.node_name for i in self.get_subscriptions_info_by_topic(topic)]}
            if missing_readers(seen, {topic: publisher.get_subscription_count()}, [SIM_NODE]):
                return
        self._armed = True
        self._arm_timer.cancel()
        c = self.rig.config
        self._pub_magnets.publish(magnet_command_to_msg(round(c.magnet_on_at * NS), {c.foot: True}))
        self._send(self.rig.pull)

    def _send(self, pull: Pull) -> None:
        load = ExternalLoad(
            self.rig.config.foot,
            round(pull.start * NS),
            np.array([0.0, 0.0, pull.force]),
            np.array([0.0, 0.0, pull.rate]),
        )
        self._pub_force.publish(external_force_to_msg(load))

    def _on_magnets(self, msg: MagnetTruthArray) -> None:
        if self.finished.is_set():
            return
        try:
            now, magnets = magnet_truth_from_msg(msg)
            if self.rig.config.foot not in magnets:
                raise InputError("length", f"magnet truth lacks {self.rig.config.foot}")
            force = magnets[self.rig.config.foot].magnitude
            self.shell.orders[MAGNETS].admit(now)
        except InputError as exc:
            return self.shell.health.reject(MAGNETS, exc.reason, str(exc))
        self.shell.health.heard(MAGNETS)
        change = self.rig.feed(now / NS, float(force))
        if change is not None:
            self._send(change)
        if self.rig.verdict is not None:
            self._finish(now, True)
        elif now >= self._duration_ns:
            self._finish(now, False)

    def _publish_diagnostics(self) -> None:
        rig, problems = self.rig, self.shell.health.summary()
        state = "done" if self.finished.is_set() else "armed" if self._armed else "waiting for the sim"
        values = {"max_applied": rig.max_applied, "held": rig.held}
        warn = bool(problems) and not self.finished.is_set()
        self.shell.publish("warn" if warn else "ok", ", ".join(filter(None, [state, problems])), values)

    def _finish(self, now: int, verdict: bool) -> None:
        rig, v = self.rig, self.rig.verdict
        result = PullOffOutcome(
            rig.config.foot, clip=rig.clip, detach_threshold=rig.threshold, max_applied=rig.max_applied
        )
        if v is not None:
            result = replace(
                result,
                held=v.held,
                detached=v.detached,
                pulloff_force=v.pulloff_force,
                detach_time=v.detach_time,
                message=v.message,
            )
        else:
            result = replace(
                result, held=rig.held, message=f"no verdict within {self._duration_ns / NS:g} s of sim time"
            )
        self._pub_result.publish(pulloff_result_to_msg(now, result))
        self.succeeded = verdict
        log = self.get_logger().info if verdict else self.get_logger().error
        log(
            f"pull-off {rig.config.foot}: {result.message}; pull-off force {result.pulloff_force:.1f} N (clip "
            f"{rig.clip:.1f} N)"
        )
        self.finished.set()


def main(args: list[str] | None = None) -> int:
    """Run the pull-off rig node (executable ``sally_pulloff``)."""
    return run_node(
        "sally_pulloff",
        PullOffNode,
        args,
        run=lambda node, executor, stop: run_until_finished(node, executor, stop, EXIT_NO_VERDICT),
    )


if __name__ == "__main__":
    sys.exit(main())
