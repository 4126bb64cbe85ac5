import glob

from setuptools import find_packages, setup

PACKAGE = "sally_state_estimator"

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
    description="Sally's state estimator: the body from the IMU, the held legs and the map; the core and the node.",
    license="BSD-3-Clause",
    entry_points={"console_scripts": ["sally_state_estimator = sally_state_estimator.node:main"]},
)
