#!/usr/bin/env bash
# Set up (if needed), then lint, check formatting and type-check every package's code:
# ruff (rules in pyproject.toml), ruff format --check, mypy (pyproject.toml's [tool.mypy]), and
# hadolint on docker/Dockerfile (the image cannot be built here; scripts/colcon_check.sh builds its workspace).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
"$SALLY_ROOT/scripts/bootstrap.sh"
cd "$SALLY_ROOT"
"$SALLY_VENV/bin/ruff" check src benchmarks conftest.py
"$SALLY_VENV/bin/ruff" format --check src benchmarks conftest.py
"$SALLY_VENV/bin/mypy" src/*/sally_*
"$SALLY_VENV/bin/hadolint" docker/Dockerfile
echo "lint: ruff, ruff format, mypy and hadolint passed"
