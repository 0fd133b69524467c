#!/usr/bin/env bash
# Sets up everything the test suite needs on a fresh machine, then runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check ".[test]"
# console scripts (croktilec) land in the interpreter's scripts dir; pyenv shims may lag
PATH="$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))'):$PATH"
export PATH
# -P: import the installed croktile_driver (with its generated parser tables), not ./
exec python3 -P -m pytest -q "$@"
