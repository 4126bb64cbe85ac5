"""A graph of :mod:`sally_bringup.graphs` as a ``ros2 launch`` description (launch, launch_ros).

Only imported by the launch files: ``launch`` and ``launch_ros`` exist on a full ROS 2 install, not
in the PyPI-wheel venv this project tests in (there ``sally-launch`` runs the same graphs).
"""

from __future__ import annotations

from .arguments import ARGUMENTS
from .graphs import GRAPHS, graph


def describe(name: str):
    """The ``launch`` description of graph ``name``: its arguments declared, its nodes started, ended with them."""
    from launch.actions import OpaqueFunction

    from launch import LaunchDescription

    return LaunchDescription([*_declared(name), OpaqueFunction(function=lambda context: _actions(name, context))])


def _declared(name: str) -> list:
    """Graph ``name``'s arguments (its own defaults), ``rviz`` and ``params_file``, declared."""
    from launch.actions import DeclareLaunchArgument

    defaults = {**{n: a.default for n, a in ARGUMENTS.items()}, **GRAPHS[name]}
    declared = [
        DeclareLaunchArgument(
            n,
            default_value=defaults[n],
            description=a.description,
            **({"choices": list(a.choices)} if a.choices else {}),
        )
        for n, a in ARGUMENTS.items()
    ]
    declared.append(
        DeclareLaunchArgument(
            "rviz", default_value="false", description="open rviz2 with rviz/sally.rviz", choices=["true", "false"]
        )
    )
    declared.append(
        DeclareLaunchArgument(
            "params_file",
            default_value="",
            description="ROS parameter YAML for the nodes, over their config/<node>.yaml defaults",
        )
    )
    return declared


def _actions(name: str, context) -> list:
    """The nodes of graph ``name`` for the launch arguments in ``context`` (each node's defaults file,
    then the user's ``params_file``, then the graph's parameters), the graph ended with a required
    node, as the embedded runner does; rviz2 with ``rviz:=true``."""
    from ament_index_python.packages import get_package_share_directory
    from launch.actions import EmitEvent, RegisterEventHandler
    from launch.event_handlers import OnProcessExit
    from launch.events import Shutdown
    from launch.substitutions import LaunchConfiguration
    from launch_ros.actions import Node
    from launch_ros.parameter_descriptions import ParameterFile

    values = {n: LaunchConfiguration(n).perform(context) for n in ARGUMENTS}
    user = LaunchConfiguration("params_file").perform(context)
    actions = []
    for spec in graph(name, values):
        files = [f"{get_package_share_directory(spec.package)}/config/{spec.config}"] if spec.config else []
        files += [user] if user else []
        parameters = [ParameterFile(f, allow_substs=True) for f in files] + (
            [spec.parameters] if spec.parameters else []
        )
        # a composed container passes its --params-file files to every hosted node
        node = Node(
            package=spec.package,
            executable=spec.executable,
            name=None,
            output="screen",
            parameters=parameters,
            arguments=list(spec.arguments),
        )
        actions.append(node)
        if spec.required:
            shutdown = EmitEvent(event=Shutdown(reason=f"{spec.name} exited"))
            actions.append(RegisterEventHandler(OnProcessExit(target_action=node, on_exit=[shutdown])))
    if LaunchConfiguration("rviz").perform(context) == "true":
        config = f"{get_package_share_directory('sally_bringup')}/rviz/sally.rviz"
        actions.append(Node(package="rviz2", executable="rviz2", arguments=["-d", config], output="screen"))
    return actions
