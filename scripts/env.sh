# Sourced by every script of this project: loopback-only DDS and the project's venv.
# DDS traffic must never leave this machine; Kilted ignores ROS_LOCALHOST_ONLY.
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
# OpenBLAS's AVX-512 kernel wherever the CPU has AVX-512, whatever was set: a lockstep run gives the
# same figures on every such CPU (sally_node_common/numerics.py says why; graphs' processes get it too)
if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
    export OPENBLAS_CORETYPE=SkylakeX
fi
SALLY_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export SALLY_ROOT
export SALLY_VENV="${SALLY_VENV:-$SALLY_ROOT/.venv}"
