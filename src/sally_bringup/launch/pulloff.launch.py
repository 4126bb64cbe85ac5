"""``ros2 launch sally_bringup pulloff.launch.py [...]``: the magnet pull-off test on FL.

The pulloff graph from ``sally_bringup.graphs`` (sim, controller, pull-off rig); the embedded
runner's ``sally-launch pulloff`` starts the same processes. Needs a full ROS 2 install.
"""

from sally_bringup.launching import describe


def generate_launch_description():
    """The pull-off graph's launch description (its arguments are the graph's, as in ``sally-launch pulloff``)."""
    return describe("pulloff")
