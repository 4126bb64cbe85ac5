"""``ros2 launch sally_bringup orient.launch.py [...]``: lift, swing and turn FL's face to the wall.

The orient graph from ``sally_bringup.graphs``; the embedded runner's ``sally-launch orient`` starts
the same processes. Needs a full ROS 2 install (launch, launch_ros).
"""

from sally_bringup.launching import describe


def generate_launch_description():
    """The orient graph's launch description (its arguments are the graph's, as in ``sally-launch orient``)."""
    return describe("orient")
