#!/usr/bin/env bash
# Configures and builds ptxbench into build/ (Release-with-debug-info, Ninja, ccache).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Build directories share one compiler cache regardless of their path.
export CCACHE_NOHASHDIR=true CCACHE_BASEDIR="$root"
build_dir="${PTXBENCH_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build_dir" -G Ninja ${PTXBENCH_CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
