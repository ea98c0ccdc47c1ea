#!/bin/bash
# Device call: the strict-mode proof of multi-kernel candidates (ncu inside the sandbox) and the
# d128 backward, then the GPU hostile suite alone (it counts the worker processes on the
# machine), then the backward CLI test and the causal backward.
set -u
BATCH=batch-proof DEFAULT_DEADLINE_S=540
source "$(dirname "${BASH_SOURCE[0]}")/clock.sh"
S=$tree/solutions
ev two-kernels-strict 90 "$tree/tests/controls/data/two_kernels_ncu.cu" gemm_n7168_k5120
ev bwd-d128-strict 180 "$S/hopper/mha_bwd_d128.cu" mha_bwd_d128
s=$(now); timeout -k 5 300 "$build/tests/sandbox/sandbox_gpu_hostile_tests" >"$out/hostile.log" 2>&1
log hostile $? "$s"; archive
s=$(now); timeout -k 5 "$(left)" "$build/tests/eval/gpu_stages/eval_backward_cli_gpu_test" \
  >"$out/backward-cli.log" 2>&1
log backward-cli $? "$s"; archive
ev bwd-d128-causal-strict 180 "$S/hopper/mha_bwd_d128_causal.cu" mha_bwd_d128_causal
cat "$out/$BATCH-summary.txt"
python3 "$tree/benchmarks/device/verdicts.py" "$S" "$out"/*.jsonl
grep -hE '^\[ +(OK|PASSED|FAILED) |Failure|Expected|Which is' "$out/hostile.log" "$out/backward-cli.log" | head -60
