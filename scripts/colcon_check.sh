#!/usr/bin/env bash
# Build the whole workspace with colcon against the pip ROS 2 of .venv (the wheels the bootstrap
# installs), then check that every package installed its executables and its share/ files:
#   scripts/colcon_check.sh [BASE]     (build, install and log under BASE; default ./colcon)
# colcon itself comes from PyPI (requirements/colcon.txt) into its own venv, .venv-colcon.
# The build command is scripts/colcon_build.sh, the one docker/Dockerfile runs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
"$SALLY_ROOT/scripts/bootstrap.sh"
cd "$SALLY_ROOT"
base="$(realpath -m "${1:-$SALLY_ROOT/colcon}")"
tools="$SALLY_ROOT/.venv-colcon"
want="$(sha256sum requirements/colcon.txt | cut -d' ' -f1)"
if [[ ! -x "$tools/bin/colcon" || "$(cat "$tools/.stamp" 2>/dev/null)" != "$want" ]]; then
    "${PYTHON:-python3}" -m venv "$tools"
    "$tools/bin/python" -m pip --disable-pip-version-check -q install -r requirements/colcon.txt \
        2> >(grep -v '^WARNING: Location' >&2)
    echo "$want" > "$tools/.stamp"
fi
rm -rf "$base"
(
    export PATH="$tools/bin:$SALLY_VENV/bin:$PATH" AMENT_PREFIX_PATH="$SALLY_VENV" CMAKE_PREFIX_PATH="$SALLY_VENV"
    export PYTHON3_EXECUTABLE="$SALLY_VENV/bin/python"
    scripts/colcon_build.sh "$base"
)
"$SALLY_VENV/bin/python" -m sally_testing.colcon_install "$base/install"
