#!/usr/bin/env bash
# Set up (if needed) and run the main job: the floor-to-wall graph, headless, four node processes.
# Extra arguments go to sally-launch (e.g. pacing:=realtime, --run-dir DIR). Exit code 0 = success.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
"$SALLY_ROOT/scripts/bootstrap.sh"
exec "$SALLY_VENV/bin/sally-launch" f2w headless:=true pacing:=lockstep "$@"
