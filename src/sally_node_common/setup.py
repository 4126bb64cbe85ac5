from setuptools import find_packages, setup

PACKAGE = "sally_node_common"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    package_data={PACKAGE: ["dds/*.xml"]},
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + PACKAGE]),
        ("share/" + PACKAGE, ["package.xml"]),
    ],
    install_requires=["setuptools"],
    zip_safe=False,
    maintainer="Sally sim stack developers",
    description="What every Sally node process shares: start-up errors, signal handling, the executor loop.",
    license="BSD-3-Clause",
    entry_points={"console_scripts": []},
)
