from setuptools import find_packages, setup

PACKAGE = "sally_wheeled"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + PACKAGE]),
        ("share/" + PACKAGE, ["package.xml", "README.md"]),
    ],
    install_requires=["setuptools"],
    zip_safe=False,
    maintainer="Sally sim stack developers",
    description="The wheeled Sally: a four-wheeled magnetic platform in MuJoCo, its drive modes and their tuning.",
    license="BSD-3-Clause",
    entry_points={
        "console_scripts": [
            "sally-wheeled = sally_wheeled.cli:main",
            "sally-wheeled-tune = sally_wheeled.cli:tune_main",
        ]
    },
)
