"""One sample of every sally_interfaces message, and a publisher process for them.

Run as a script, it publishes each sample on /samples/<Type> until it is stopped (the round-trip
test starts it as a separate process and compares what arrives, field by field).
"""

import sys

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Point, Pose, Quaternion, Vector3
from std_msgs.msg import Header

from sally_interfaces.msg import (
    ExternalForce,
    FootState,
    FootStates,
    IKStatus,
    IKTarget,
    MagnetArray,
    MagnetCommand,
    MagnetState,
    MagnetTruth,
    MagnetTruthArray,
    PullOffResult,
    SequenceStatus,
    ServoCommand,
)


def header(n: int) -> Header:
    return Header(stamp=Time(sec=12, nanosec=345_000_000 + n), frame_id=f"world{n}")


def samples() -> dict:
    magnet = MagnetState(foot="FR", enabled=True, contact_reading=818.5, contact_sensed=True)
    truth = MagnetTruth(
        foot="FR", enabled=True, force=Vector3(x=1.5, y=-2.5, z=-800.7), magnitude=800.7,
        min_distance=-0.00062, surface="floor", in_contact=True, penetration=0.00062, contact_force=821.25,
    )  # fmt: skip
    foot = FootState(
        foot="BL",
        pose=Pose(position=Point(x=-0.33, y=0.28, z=0.009), orientation=Quaternion(w=0.5, x=0.5, y=-0.5, z=0.5)),
        hip_pivot=Point(x=-0.15, y=0.1, z=0.12), mode=IKTarget.POSE,
        in_contact=True, penetration=0.0004, lift=-0.0004,
    )  # fmt: skip
    return {
        "IKTarget": IKTarget(
            header=header(1),
            stance_feet=["FL", "FR", "BL", "BR"],
            stance_modes=[IKTarget.SWING, IKTarget.POSE, IKTarget.POSITION, IKTarget.POSITION],
            foot="FL",
            position=Point(x=0.47, y=0.08, z=0.4),
            has_face_axis=True,
            face_axis=Vector3(x=1.0, y=0.0, z=0.0),
            position_cost=1.0,
            orientation_cost=0.5,
            phase="F2W_ORIENT",
        ),  # fmt: skip
        "MagnetCommand": MagnetCommand(header=header(3), feet=["FL", "BR"], enable=[False, True]),
        "MagnetState": magnet,
        "MagnetArray": MagnetArray(header=header(4), magnets=[magnet, MagnetState(foot="BL", contact_reading=-0.25)]),
        "MagnetTruth": truth,
        "MagnetTruthArray": MagnetTruthArray(header=header(4), magnets=[truth, MagnetTruth(foot="BL", surface="none")]),
        "FootState": foot,
        "FootStates": FootStates(header=header(5), feet=[foot, FootState(foot="FR", mode=IKTarget.SWING)]),
        "IKStatus": IKStatus(
            header=header(6),
            status=IKStatus.STALLED,
            foot="FR",
            position_error=0.0123,
            orientation_error=0.25,
            solve_time=0.00031,
            message="no progress for 20 solves",
        ),  # fmt: skip
        "ExternalForce": ExternalForce(
            header=header(8), foot="BR", force=Vector3(x=0.0, y=-12.5, z=300.25), force_rate=Vector3(z=50.0)
        ),
        "PullOffResult": PullOffResult(
            header=header(9),
            foot="FL",
            held=True,
            detached=True,
            pulloff_force=812.5,
            detach_time=1.625,
            clip=900.0,
            detach_threshold=20.0,
            max_applied=830.0,
            message="detached at 812.5 N",
        ),  # fmt: skip
        "ServoCommand": ServoCommand(
            header=header(10),
            name=["hip_pitch_FL", "knee_FL"],
            position=[0.25, -1.5],
            velocity=[0.0, 0.125],
            effort=[1.5, -3.25],
            kp=[500.0, 500.0],
            kd=[30.0, 30.0],
        ),  # fmt: skip
        "SequenceStatus": SequenceStatus(
            header=header(7),
            sequence="f2w",
            foot="FL",
            phase="F2W_REACH",
            phase_index=4,
            phase_count=5,
            phase_progress=0.723,
            elapsed=8.2,
            phase_start=8.0,
            done=False,
            failed=False,
            message="reaching",
        ),  # fmt: skip
    }


def main() -> int:
    import rclpy

    from sally_node_common import run_node

    def make():
        node = rclpy.create_node("interface_samples")
        msgs = samples()
        pubs = {name: node.create_publisher(type(msg), f"/samples/{name}", 10) for name, msg in msgs.items()}
        node.create_timer(0.05, lambda: [pubs[name].publish(msg) for name, msg in msgs.items()])
        return node

    return run_node("interface_samples", make)


if __name__ == "__main__":
    sys.exit(main())
