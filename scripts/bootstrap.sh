#!/usr/bin/env bash
# Set up everything on a fresh machine: .venv from PyPI with pinned versions, then the project's
# packages (editable). Re-running is a no-op when nothing it depends on changed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$SALLY_ROOT"

PYTHON="${PYTHON:-python3}"
PACKAGES=(src/sally_description src/sally_sim_node src/sally_controller src/sally_ik_node)
STAMP="$SALLY_VENV/.sally-bootstrap"

inputs_hash() {
    cat scripts/bootstrap.sh scripts/env.sh requirements/*.txt \
        $(printf '%s/setup.py %s/setup.cfg %s/package.xml ' "${PACKAGES[@]}" "${PACKAGES[@]}" "${PACKAGES[@]}") \
        | sha256sum | cut -d' ' -f1
}

want="$(inputs_hash)"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" && -x "$SALLY_VENV/bin/python" ]]; then
    exit 0
fi

echo "bootstrap: setting up $SALLY_VENV" >&2
"$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "Python >= 3.10 is required")'
[[ -x "$SALLY_VENV/bin/python" ]] || "$PYTHON" -m venv "$SALLY_VENV"
pip() {  # quiet pip; drops this machine's notes about find-links folders it does not have
    "$SALLY_VENV/bin/python" -m pip --disable-pip-version-check -q "$@" 2> >(grep -v '^WARNING: Location' >&2)
}
pip install -r requirements/python.txt
pip install --no-deps --no-build-isolation --use-pep517 $(printf -- '-e %s ' "${PACKAGES[@]}")
echo "$want" > "$STAMP"
echo "bootstrap: done" >&2
