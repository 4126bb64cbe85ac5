#!/usr/bin/env bash
# Set up (if needed), then lint, check formatting and type-check every package's code:
# ruff (rules in pyproject.toml), ruff format --check, mypy (pyproject.toml's [tool.mypy]).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
"$SALLY_ROOT/scripts/bootstrap.sh"
cd "$SALLY_ROOT"
"$SALLY_VENV/bin/ruff" check src benchmarks conftest.py
"$SALLY_VENV/bin/ruff" format --check src benchmarks conftest.py
"$SALLY_VENV/bin/mypy" src/*/sally_*
echo "lint: ruff, ruff format and mypy passed"
