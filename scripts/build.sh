#!/usr/bin/env bash
# Configures and builds ptxbench into build/ (Release with line tables, -g1; Ninja, ccache).
#   scripts/build.sh              every target (the CLI, the GPU worker, tests, benchmarks)
#   scripts/build.sh TARGET...    only those targets and what they need (scripts/demo.sh does this)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Build directories share one compiler cache regardless of their path, except for the files that
# use precompiled headers (most of them): a .gch holds its folder's paths, so ccache reuses those
# objects only for rebuilds in the same folder.
export CCACHE_NOHASHDIR=true CCACHE_BASEDIR="$root"
# Precompiled headers (cmake/PtxbenchPch.cmake) are cached only with these sloppiness settings:
# the .gch is written during the build, newer than the files that include it.
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
build_dir="${PTXBENCH_BUILD_DIR:-$root/build}"
echo "build: configuring $build_dir"
cmake -S "$root" -B "$build_dir" -G Ninja ${PTXBENCH_CMAKE_ARGS:-} >/dev/null
targets=()
[ $# -eq 0 ] || targets=(--target "$@")
echo "build: ${*:-all targets} ($(nproc) jobs; ninja counts the steps as [done/total])"
cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}"
