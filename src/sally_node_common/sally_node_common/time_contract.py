"""The graph's time contract: the stamp each message carries, what it answers, when it applies and
who waits for it. No ROS, no clock.

Sim time is a step counter, so stamps are integer nanoseconds of sim time and compare exactly. A
graph has two periods: the control period ``C`` (the sim's ``state_rate``: a /joint_states message
every ``C``, each answered by one command; :data:`CONTROL_PERIOD`, 5 ms, as a robot's controller
sends its motor drivers setpoints at 200 Hz, the servos closing their loops at every physics step;
:data:`EFFORT_PERIOD`, 1 ms, on the effort path, where a torque controller's efforts are the
command) and the IK period ``P`` (:data:`IK_PERIOD`, 5 ms: the IK solves the states whose stamp is
a multiple of ``P``; by default ``C = P``, every state). Every answer to the input stamped ``t``
carries ``t`` (the sequencer's commands excepted: they name the solve they are for).

* **/joint_states** (and **/sally/odom**, every ``P`` by default), from the sim: stamped ``t``,
  every ``C``.
* **/sally/odom_joint_states**, from the sim when the IK runs in another process than the sim
  (``apart:=`` names it): the /joint_states messages that go out with /sally/odom, every ``P``
  (:data:`ODOM_JOINT_STATES`). Such an IK reads these, not every /joint_states: the states it
  solves, at a fifth of the DDS cost.
* **/sally/servo_commands** (or **/sally/joint_efforts** on the effort path), from the controller:
  stamped ``t``, the answer to the state ``t``; applies from ``t + L`` until the next, ``L`` the
  control latency (:data:`CONTROL_LATENCY` control periods, the sim's ``control_latency``). In
  lockstep (and realtime ``sync``) the sim steps the period from ``t`` with the answer to ``t - L``
  and does not end it before the answer to ``t`` is in; with ``L = 0`` it waits for that answer
  before stepping at all.
* **/sally/joint_targets**, **/sally/ik_status**, **/sally/foot_states**, from the IK: stamped
  ``t``, the solve of the state ``t`` (a multiple of ``P``); the targets answer the states ``t + K``
  to ``t + K + P - C`` (:func:`targets_for`), ``K`` the IK latency (:data:`IK_LATENCY` IK periods,
  the graph's ``ik_latency``). The controller holds those states back until they are in, and keeps
  targets that came early until their first state.
* **/sally/ik_target**, from the sequencer: made from the foot states ``t``, stamped ``t + P``
  (:func:`commands_for`): everything the solve at ``t + P`` needs from the sequencer (every foot's
  stance, the swing target, the body target) in one message. With ``target_sync`` the IK waits for
  it before solving that state.
* **/sally/magnet_cmd**, from the sequencer, made with those: stamped ``t + P + K``, when the
  solve's targets start to act (:func:`magnets_for`), and a magnet switch takes effect when sim
  time reaches ``t + P + K + L`` (any stamped command to the sim applies ``L`` after its stamp, as
  the servo commands do).

So each answer is due a declared time after its input's stamp (its logical execution time): ``L``
for what acts on the physics, ``K`` IK periods for the IK's targets (with ``K = 0`` they are due
before the controller answers the same state). Nothing waited for depends on which message arrives
first, so lockstep runs are bit-identical on any host (one process, or one
per node) and realtime runs with ``sync:=true`` give the lockstep figures. With ``L = 1`` the physics
of a period runs in a thread of its own while the graph answers the state it started from: two cores
at work, the same run however the OS schedules them. With ``K = 1`` an IK (and sequencer) in a
process of its own solves the state ``t`` while the sim steps the IK period from ``t`` with the
solve of ``t - P``. One thing is not waited for: a magnet command stamped ``t + P + K``. The sequencer
sends it before the target the IK waits for, and it applies only once the sim has the answer to
``t + P + K`` (which needs the IK's solve of ``t + P``, which needs that target), so it is at the sim
first (in one process at once; across processes one DDS delivery against three: target, joint
targets, servo command); one that came later would be applied at once, warned of and counted
(``magnet_commands_past_due`` on the sim's /diagnostics).
"""

from __future__ import annotations

CONTROL_PERIOD = 0.005
"""Default control period (s of sim time): the sim's /joint_states period, the controller's step
(its servo commands, 200 Hz)."""
EFFORT_PERIOD = 0.001
"""The effort path's control period (s of sim time): a torque controller's efforts every 1 ms."""
IK_PERIOD = 0.005
"""Default IK period (s of sim time): the IK solves, and the sequencer steps, once per period."""
CONTROL_LATENCY = 1
"""Default control latency (control periods): the answer to the state at t acts from t + 1 period,
as on hardware, where a controller's answer is never instantaneous; the sim steps that period while
the graph computes it."""
IK_LATENCY = 0
"""Default IK latency (IK periods): the solve of the state at t answers the states from t + K
periods. 0: the controller answers the state at t with the solve of t itself; 1: with the solve of
t - P, so an IK in another process computes while the sim steps."""
SERVO_COMMANDS = "/sally/servo_commands"
"""The controller's answers (``sally_interfaces/ServoCommand``), the sim's ``command_source`` servo."""
JOINT_EFFORTS = "/sally/joint_efforts"
"""The effort path's answers (``sensor_msgs/JointState`` efforts), the sim's ``command_source`` efforts."""
JOINT_COMMANDS = "/sally/joint_commands"
"""ros2_control's joint commands (topic_based_hardware_interfaces' JointState commands), the sim's
``command_source`` joint_commands: the sim alone, not answered by stamp."""
ODOM_JOINT_STATES = "/sally/odom_joint_states"
"""The sim's /joint_states messages that carry an odometry stamp (every IK period), on a topic of
their own, for a reader in another process that needs no more (an IK apart from the sim)."""

PACING_MODES = ("realtime", "fast", "lockstep")
"""How sim time advances: in step with the wall clock, as fast as the machine steps, or every node
answering every step (runs repeat)."""


def gated(pacing: str, synchronous: bool) -> bool:
    """Whether the sim waits at each state for its answer (a stamped run of ``pacing``): always in
    lockstep, in realtime when ``synchronous`` (``sync:=true`` with the servo path's controller),
    never in fast. The one home of this rule: the graph hands the nodes what it gives, the sim node
    paces by it."""
    return pacing == "lockstep" or (pacing == "realtime" and synchronous)


def is_ik_tick(stamp: int, ik_period_ns: int) -> bool:
    """Whether the state stamped ``stamp`` is one the IK solves (a multiple of the IK period)."""
    return stamp % ik_period_ns == 0


def targets_for(state_stamp: int, ik_period_ns: int, ik_latency: int = 0) -> int:
    """The stamp of the IK targets that answer the state stamped ``state_stamp``: the latest IK tick
    at or before it, ``ik_latency`` IK periods back (the controller holds that state back until
    they are in; negative: no solve answers it, the controller holds the pose it starts in)."""
    return state_stamp - state_stamp % ik_period_ns - ik_latency * ik_period_ns


def commands_for(feet_stamp: int, ik_period_ns: int) -> int:
    """The stamp of the sequencer's commands made from the foot states stamped ``feet_stamp``: the
    next solve's (and the sim time a magnet switch among them takes effect)."""
    return feet_stamp + ik_period_ns


def magnets_for(feet_stamp: int, ik_period_ns: int, ik_latency: int = 0) -> int:
    """The stamp of a magnet command made from the foot states stamped ``feet_stamp``: the sim time
    the next solve's targets start to act, so a foot's magnet switches with the joint targets that
    go with it (and a command reaches the sim before the answer it waits for, see above)."""
    return commands_for(feet_stamp, ik_period_ns) + ik_latency * ik_period_ns
