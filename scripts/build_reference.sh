#!/usr/bin/env bash
# Builds the reference compiler's binary (Choreo, https://github.com/LancerLab/choreo) for
# the comparisons in bench/bench_transpile.py and scripts/ref_conformance.py, and prints
# its path. Not part of CI. The reference needs CMake >= 3.22, Ninja, a C++17 compiler,
# flex and Bison >= 3.8 (Debian 12: cmake ninja-build g++ flex bison); its submodules
# (CUTLASS, googletest) are not needed for the compiler itself. Where /usr/local/cuda
# exists its CMake links libcudart into the binary (its default); CUTE stays off without
# CUTLASS, which changes no generated source.
#
#   scripts/build_reference.sh                  # clones the repository into $CHOREO_SRC
#   scripts/build_reference.sh /path/to/choreo  # a checkout, or a (bare) git repository of it
#
# Environment: CHOREO_SRC (where a clone goes, default ~/.cache/croktile/choreo),
# CHOREO_REPO (the URL cloned), CHOREO_REV (the revision, default the default branch's head),
# JOBS (parallel compile jobs, default 2; each takes up to ~1 GiB and runs under nice).
set -euo pipefail

repo_url=${CHOREO_REPO:-https://github.com/LancerLab/choreo.git}
dest=${CHOREO_SRC:-${XDG_CACHE_HOME:-$HOME/.cache}/croktile/choreo}
jobs=${JOBS:-2}
given=${1:-}

log() { echo "build_reference.sh: $*" >&2; }

# the Debian packages, where a tool is missing and we may install them
need=()
for tool in cmake:cmake ninja:ninja-build g++:g++ flex:flex bison:bison git:git; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || need+=("${tool#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    log "missing ${need[*]} (installing needs root and apt-get)"; exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" ca-certificates >/dev/null
fi

# the source tree: a checkout as given, else one made from a git repository or the URL
if [ -n "$given" ] && [ -f "$given/CMakeLists.txt" ]; then
  src=$(cd "$given" && pwd)
else
  src=$dest
  if [ ! -f "$src/CMakeLists.txt" ]; then
    mkdir -p "$src"
    if [ -n "$given" ] && git -C "$given" rev-parse --git-dir >/dev/null 2>&1; then
      log "extracting ${CHOREO_REV:-HEAD} of $given into $src"
      git -C "$given" archive "${CHOREO_REV:-HEAD}" | tar -x -C "$src"
    elif [ -n "$given" ]; then
      log "$given is neither a checkout of the reference nor a git repository of it"; exit 1
    else
      log "cloning $repo_url into $src"
      if [ -n "${CHOREO_REV:-}" ]; then
        git clone --quiet "$repo_url" "$src" && git -C "$src" checkout --quiet "$CHOREO_REV"
      else
        git clone --quiet --depth 1 "$repo_url" "$src"
      fi
    fi
  fi
fi

# a Release build of the `choreo` target only (the reference's `make release` builds more),
# with its default target as its Makefile sets it
build=$src/build-release
log "configuring $build"
nice -n 10 cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCHOREO_DEFAULT_TARGET=cute >&2
log "building choreo with $jobs jobs"
nice -n 10 ninja -C "$build" -j "$jobs" choreo >&2
"$build/choreo" --help >/dev/null 2>&1 || { log "$build/choreo does not run"; exit 1; }
echo "$build/choreo"
