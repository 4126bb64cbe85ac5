import glob

from setuptools import find_packages, setup

PACKAGE = "sally_sequencer"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + PACKAGE]),
        ("share/" + PACKAGE, ["package.xml"]),
        ("share/" + PACKAGE + "/config", glob.glob("config/*.yaml")),  # the nodes' defaults
    ],
    install_requires=["setuptools"],
    zip_safe=False,
    maintainer="Sally sim stack developers",
    description="Sally's phase logic and the sequencer node.",
    license="BSD-3-Clause",
    entry_points={
        "console_scripts": [
            "sally_sequencer = sally_sequencer.node:main",
            "sally-reach = sally_sequencer.reach_map:main",
        ]
    },
)
