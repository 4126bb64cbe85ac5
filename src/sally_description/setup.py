from setuptools import find_packages, setup

PACKAGE = "sally_description"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    package_data={PACKAGE: ["mjcf/*.xml"]},
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + PACKAGE]),
        ("share/" + PACKAGE, ["package.xml"]),
        ("share/" + PACKAGE + "/mjcf", ["sally_description/mjcf/sally.xml"]),
    ],
    install_requires=["setuptools"],
    zip_safe=False,
    maintainer="Sally sim stack developers",
    description="Sally's MJCF (steel floor-to-wall corner, four electromagnet legs) and its in-memory MjSpec builder.",
    license="BSD-3-Clause",
    entry_points={"console_scripts": ["sally-urdf = sally_description.urdf:main"]},
)
