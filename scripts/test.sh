#!/usr/bin/env bash
# Sets up everything the test suite needs on a fresh machine, then runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check ".[test]"
# -P: import the installed croktile_driver (with its generated parser tables), not ./
exec python3 -P -m pytest -q "$@"
