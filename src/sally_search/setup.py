from setuptools import find_packages, setup

PACKAGE = "sally_search"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + PACKAGE]),
        ("share/" + PACKAGE, ["package.xml"]),
    ],
    install_requires=["setuptools"],
    zip_safe=False,
    maintainer="Sally sim stack developers",
    description="Search spaces and crash-safe results folders shared by Sally's parameter searches.",
    license="BSD-3-Clause",
)
