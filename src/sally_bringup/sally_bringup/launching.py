"""A graph of :mod:`sally_bringup.graphs` as a ``ros2 launch`` description (launch, launch_ros).

Only imported by the launch files: ``launch`` and ``launch_ros`` exist on a full ROS 2 install, not
in the PyPI-wheel venv this project tests in (there ``sally-launch`` runs the same graphs).
"""

from __future__ import annotations

from .graphs import ARGUMENTS, GRAPHS, graph


def describe(name: str):
    """The ``launch`` description of graph ``name``: its arguments declared, its nodes started, ended with them."""
    from launch.actions import DeclareLaunchArgument, EmitEvent, OpaqueFunction, RegisterEventHandler
    from launch.event_handlers import OnProcessExit
    from launch.events import Shutdown
    from launch.substitutions import LaunchConfiguration
    from launch_ros.actions import Node

    from launch import LaunchDescription

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

    def nodes(context):
        from ament_index_python.packages import get_package_share_directory
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
            node = Node(
                package=spec.package,
                executable=spec.executable,
                name=None,
                output="screen",
                parameters=parameters,
                arguments=list(
                    spec.arguments
                ),  # a composed container passes its --params-file files to every hosted node
            )
            actions.append(node)
            if spec.required:  # the graph ends with a required node, as the embedded runner does
                actions.append(
                    RegisterEventHandler(
                        OnProcessExit(
                            target_action=node, on_exit=[EmitEvent(event=Shutdown(reason=f"{spec.name} exited"))]
                        )
                    )
                )
        if LaunchConfiguration("rviz").perform(context) == "true":
            config = f"{get_package_share_directory('sally_bringup')}/rviz/sally.rviz"
            actions.append(Node(package="rviz2", executable="rviz2", arguments=["-d", config], output="screen"))
        return actions

    return LaunchDescription([*declared, OpaqueFunction(function=nodes)])
