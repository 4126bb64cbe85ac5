"""Check a colcon install tree: every package of ``src/`` installed what a ROS 2 user needs.

``python -m sally_testing.colcon_install INSTALL`` (run by ``scripts/colcon_check.sh``): for each
package with a ``package.xml`` under ``src/``, its ``share/<pkg>/package.xml`` and ament index
entry; for Python packages their module and every console script of ``setup.py`` under
``lib/<pkg>/`` (what ``ros2 run`` starts); the launch files, the nodes' ``config/*.yaml``, the rviz
and Foxglove layouts and the MJCF; for message packages every ``.msg``. Prints what is missing and
exits 1 when anything is.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2]
DATA = {"launch": "*.launch.py", "config": "*.yaml", "rviz": "*", "msg": "*.msg", "srv": "*.srv"}
"""Folders of a package's source whose files must all be installed under share/<pkg>/<folder>."""


def console_scripts(setup_py: Path) -> list[str]:
    """The console script names a setup.py declares (read with ast, never run)."""
    names = []
    for node in ast.walk(ast.parse(setup_py.read_text())):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "=" in node.value and ":" in node.value:
            name, _, target = node.value.partition("=")
            if "." in target or ":" in target:
                names.append(name.strip())
    return names


def expected(package: Path) -> list[str]:
    """Paths (relative to the install base) package ``package`` must have installed."""
    name = package.name
    share = f"{name}/share/{name}"
    want = [f"{share}/package.xml", f"{name}/share/ament_index/resource_index/packages/{name}"]
    for folder, pattern in DATA.items():
        want += [f"{share}/{folder}/{p.name}" for p in sorted((package / folder).glob(pattern)) if p.is_file()]
    setup = package / "setup.py"
    if setup.exists():
        want += [f"{name}/lib/{name}/{script}" for script in console_scripts(setup)]
        want += [f"{name}/lib/python*/site-packages/{name}/__init__.py"]
    if name == "sally_description":
        want.append(f"{share}/mjcf/sally.xml")
    return want


def missing(install: Path) -> list[str]:
    """What an install base lacks of what the packages install (paths, relative)."""
    gone = []
    for package in sorted(p.parent for p in SRC.glob("*/package.xml")):
        for path in expected(package):
            if not list(install.glob(path)):
                gone.append(path)
    return gone


class BackgroundCheck:
    """``scripts/colcon_check.sh BASE`` started now at the lowest CPU priority (``nice -n 19``), so
    that it builds on what the test suite leaves idle; :meth:`result` waits for it. The suite starts
    it as soon as it knows the test will run, and the test only reads the result."""

    def __init__(self, base: Path, env: dict[str, str]) -> None:
        import subprocess
        import tempfile

        self.base = Path(base)
        self._out = tempfile.TemporaryFile(mode="w+")
        self._process = subprocess.Popen(
            ["nice", "-n", "19", "bash", str(SRC.parent / "scripts" / "colcon_check.sh"), str(self.base)],
            stdout=self._out, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True,
        )  # fmt: skip

    def result(self, timeout: float) -> tuple[int | None, str]:
        """(exit status, output) once it has ended; status None if it had not within ``timeout`` s."""
        import subprocess

        try:
            code: int | None = self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            code = None
        self._out.seek(0)
        return code, self._out.read()

    def stop(self) -> None:
        """Stop it (and everything it started) if it still runs."""
        import os
        import signal

        if self._process.poll() is None:
            try:
                os.killpg(self._process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._process.wait(30)
        self._out.close()


def main(argv: list[str] | None = None) -> int:
    """``python -m sally_testing.colcon_install INSTALL_BASE``: check a colcon install is complete."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m sally_testing.colcon_install INSTALL_BASE", file=sys.stderr)
        return 2
    install = Path(args[0])
    if not install.is_dir():
        print(f"colcon_install: {install} is not a directory (did colcon build run?)", file=sys.stderr)
        return 1
    packages = sorted(p.parent.name for p in SRC.glob("*/package.xml"))
    gone = missing(install)
    checked = sum(len(expected(SRC / p)) for p in packages)
    if gone:
        print(f"colcon_install: {len(gone)} of {checked} expected files are missing:", *gone, sep="\n  ")
        return 1
    print(f"colcon_install: {len(packages)} packages, all {checked} expected files installed ({', '.join(packages)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
