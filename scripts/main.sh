#!/usr/bin/env bash
# Set up (if needed) and run the main job headless. Extra arguments go to the job.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
"$SALLY_ROOT/scripts/bootstrap.sh"
exec "$SALLY_VENV/bin/sally-demo" "$@"
