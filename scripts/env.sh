# Sourced by every script of this project: loopback-only DDS and the project's venv.
# DDS traffic must never leave this machine; Kilted ignores ROS_LOCALHOST_ONLY.
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
SALLY_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export SALLY_ROOT
export SALLY_VENV="${SALLY_VENV:-$SALLY_ROOT/.venv}"
