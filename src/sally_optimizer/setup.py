from setuptools import find_packages, setup

PACKAGE = "sally_optimizer"

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
    description="Offline CMA-ES identification of Sally's physics parameters over headless node graphs.",
    license="BSD-3-Clause",
    entry_points={
        "console_scripts": [
            "sally-optimize = sally_optimizer.cli:optimize_main",
            "sally-replay = sally_optimizer.cli:replay_main",
        ]
    },
)
