#!/usr/bin/env bash
# Build every package of the workspace with colcon, as a ROS 2 user does:
#   scripts/colcon_build.sh [BASE]   -> BASE/build, BASE/install, BASE/log (default: ./colcon)
# The ROS 2 underlay must be in the environment: /opt/ros/<distro>/setup.bash (docker/Dockerfile
# runs this script so), or the pip ROS 2 of .venv (scripts/colcon_check.sh sets that up).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base="$(realpath -m "${1:-$root/colcon}")"
cd "$root"
colcon --log-base "$base/log" build \
    --base-paths src \
    --build-base "$base/build" \
    --install-base "$base/install" \
    --cmake-args -DBUILD_TESTING=OFF ${PYTHON3_EXECUTABLE:+-DPython3_EXECUTABLE="$PYTHON3_EXECUTABLE"}
