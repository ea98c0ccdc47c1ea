#!/usr/bin/env bash
# Sets up, builds and runs the main job on the built-in default: `ptxbench demo`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
exec "${PTXBENCH_BUILD_DIR:-$root/build}/src/ptxbench" demo "$@"
