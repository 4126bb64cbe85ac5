import glob

from setuptools import find_packages, setup

PACKAGE = "sally_bringup"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + PACKAGE]),
        ("share/" + PACKAGE, ["package.xml"]),
        # ros2 launch sally_bringup f2w.launch.py finds them in share/sally_bringup/launch
        ("share/" + PACKAGE + "/launch", glob.glob("launch/*.launch.py")),
        ("share/" + PACKAGE + "/rviz", glob.glob("rviz/*.rviz") + glob.glob("rviz/*.json")),  # rviz, Foxglove layouts
    ],
    install_requires=["setuptools"],
    zip_safe=False,
    maintainer="Sally sim stack developers",
    description="Sally node graphs, launch files, the embedded runner and the tools tests and benchmarks share.",
    license="BSD-3-Clause",
    entry_points={
        "console_scripts": [
            "sally-launch = sally_bringup.cli:main",
            "sally_composed = sally_bringup.composed:main",
            "sally-report = sally_bringup.report_cli:main",
        ]
    },
)
