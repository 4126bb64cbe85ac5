#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite. Extra arguments go to pytest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
"$SALLY_ROOT/scripts/bootstrap.sh"
cd "$SALLY_ROOT"
exec "$SALLY_VENV/bin/python" -m pytest "$@"
