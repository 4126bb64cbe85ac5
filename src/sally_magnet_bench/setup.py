from setuptools import find_packages, setup

PACKAGE = "sally_magnet_bench"

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
    description="The EML63mm-12 electromagnet bench: pull-off and peel tests and the CMA-ES clip fit.",
    license="BSD-3-Clause",
    entry_points={
        "console_scripts": [
            "sally-magnet-bench = sally_magnet_bench.cli:main",
            "sally-magnet-bench-fit = sally_magnet_bench.cli:fit_main",
        ]
    },
)
