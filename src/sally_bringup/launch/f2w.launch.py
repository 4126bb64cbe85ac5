"""``ros2 launch sally_bringup f2w.launch.py [sequence:=f2w] [pacing:=realtime] ...``.

The floor-to-wall graph from ``sally_bringup.graphs`` (the same data the embedded runner,
``sally-launch f2w``, starts). Needs a full ROS 2 install (launch, launch_ros).
"""

from sally_bringup.launching import describe


def generate_launch_description():
    """The f2w graph's launch description (its arguments are the graph's, as in ``sally-launch f2w``)."""
    return describe("f2w")
