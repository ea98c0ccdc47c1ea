#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite that needs no GPU (ctest -LE 'gpu|image').
# On a GPU machine, `scripts/test.sh -L gpu` runs the GPU tests instead; `scripts/test.sh -L image`
# builds docker/Dockerfile for real where an image builder is present (an hour, the network).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
cd "${PTXBENCH_BUILD_DIR:-$root/build}"
if [ $# -eq 0 ]; then set -- -LE 'gpu|image'; fi
ctest --output-on-failure --timeout 600 -j "$(nproc)" "$@"
