#!/usr/bin/env bash
# Sets up, builds what the demo needs and runs the main job on the built-in default:
# `ptxbench demo`. The CLI is always built; the GPU worker only where an NVIDIA driver is present
# (without one the GPU stages cannot run anyway). scripts/test.sh builds everything else.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The demo needs no training stack (torch, transformers...: minutes to install); the test command
# installs it.
PTXBENCH_SKIP_TRAIN="${PTXBENCH_SKIP_TRAIN:-1}" "$root/scripts/setup.sh"
targets=(ptxbench)
gpu_build=yes
case "${PTXBENCH_CMAKE_ARGS:-}" in *PTXBENCH_ENABLE_GPU=OFF*) gpu_build=no ;; esac
if [ "$gpu_build" = yes ] &&
  { [ -e /proc/driver/nvidia/version ] || ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; }; then
  targets+=(ptxbench-worker)
fi
"$root/scripts/build.sh" "${targets[@]}"
exec "${PTXBENCH_BUILD_DIR:-$root/build}/src/ptxbench" demo "$@"
