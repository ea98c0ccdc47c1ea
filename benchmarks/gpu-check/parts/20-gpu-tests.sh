#!/usr/bin/env bash
# The GPU test suite (ctest -L gpu), except the suites that part 10 covers through the CLI
# (controls_eval_test, solutions_eval_test); the GPU hostile suite runs first and alone (it
# counts the machine's worker processes). A test ctest did not reach is reported as not run.
set -u
source "$TREE/benchmarks/gpu-check/lib.sh"
cd "$BUILD" || exit 1
s=$(now)
# Only what the GPU-labelled tests run (the target ptxbench-gpu-tests, tests/CMakeLists.txt).
timeout -k 5 300 ninja -k 0 -j"$(nproc)" ptxbench-gpu-tests >"$RESULTS/build.log" 2>&1
log "build (ptxbench-gpu-tests)" $? "$s"
s=$(now)
timeout -k 5 200 ctest -L gpu -R 'sandbox_gpu_hostile' --output-on-failure >"$RESULTS/hostile.log" 2>&1
log hostile $? "$s"
s=$(now)
timeout -k 5 "$(left)" ctest -L gpu -E 'sandbox_gpu_hostile|controls_eval_test|solutions_eval_test' \
  -j 3 --timeout 400 --output-on-failure >"$RESULTS/ctest.log" 2>&1
log "ctest -L gpu" $? "$s"
grep -hE 'tests passed|tests failed|No tests were found|\*\*\*|Not Run|Failed|Timeout' "$RESULTS/hostile.log" "$RESULTS/ctest.log" | head -40
