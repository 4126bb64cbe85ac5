import glob

from setuptools import find_packages, setup

PACKAGE = "sally_sim_node"

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
    description="MuJoCo simulation of Sally: dipole-dipole electromagnet model, simulator core and the sim node.",
    license="BSD-3-Clause",
    entry_points={
        "console_scripts": [
            "sally_sim_node = sally_sim_node.node:main",
            "sally_pulloff = sally_sim_node.pulloff_node:main",
        ]
    },
)
