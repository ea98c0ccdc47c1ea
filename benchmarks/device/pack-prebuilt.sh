#!/bin/bash
# Stripped executables of build/ that the device batches run, into .wt-batch/prebuilt.tar.xz
# (extracted on the device into build/ at the same path: the build is relocatable anyway).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
b="$root/build"
stage=/tmp/prebuilt-stage
rm -rf "$stage" && mkdir -p "$stage"
list=(src/ptxbench src/ptxbench-worker
  tests/eval/gpu_stages/eval_gpu_kernels_test tests/eval/gpu_stages/eval_gpu_stages_test
  tests/eval/worker/eval_worker_test tests/eval/worker/fake_ptxbench_worker
  tests/sandbox/sandbox_gpu_hostile_tests tests/sandbox/sandbox_hostile_tests tests/sandbox/sandbox_hostile_program
  tests/controls/controls_eval_test tests/controls/ncu_fallback_eval_test
  tests/solutions/solutions_eval_test tests/eval/proof/eval_proof_gpu_tests
  tests/eval/correctness/gpu/eval_correctness_rule_gpu_test
  tests/eval/correctness/gpu/eval_correctness_reference_gpu_test
  ${EXTRA:-})
list+=(tests/eval/gpu_stages/eval_backward_cli_gpu_test tests/eval/gpu_stages/eval_candidates)
for f in $(cd "$b" && ls -d tests/eval/gpu_stages/candidates/*.so 2>/dev/null); do list+=("$f"); done
for a in "${list[@]}"; do
  [ -e "$b/$a" ] || { echo "missing $a" >&2; continue; }
  mkdir -p "$stage/$(dirname "$a")"
  if [ -d "$b/$a" ]; then cp -a "$b/$a" "$stage/$a"
  elif file "$b/$a" | grep -q ELF; then strip --strip-debug -o "$stage/$a" "$b/$a"; else cp -a "$b/$a" "$stage/$a"; fi
done
# ctest files are not needed; the CMake cache tells gpu-check.sh nothing it uses.
tar -cJf "${PREBUILT_TAR:-$root/.wt-batch/prebuilt.tar.xz}" -C "$stage" .
du -sh "${PREBUILT_TAR:-$root/.wt-batch/prebuilt.tar.xz}"
