#!/bin/bash
# Device call 3: the GPU hostile suite alone, then in parallel: the fine-tuning loop, the
# ncu fallback under the strict sandbox (two-kernel control), the backward CLI test and the
# solutions not judged in call 2.
set -u
BATCH=batch3 DEFAULT_DEADLINE_S=400
source "$(dirname "${BASH_SOURCE[0]}")/clock.sh"
S=$tree/solutions
s=$(now); timeout -k 5 190 "$build/tests/sandbox/sandbox_gpu_hostile_tests" >"$out/F-hostile.log" 2>&1; log hostile $? $s
archive
(
  s=$(now); OUT="$out/loop" STEPS="env model loop" PTXBENCH="$P" timeout -k 5 "$(left)" \
    bash "$tree/python/scripts/gpu_loop.sh" >"$out/L-loop.log" 2>&1; log loop $? $s
) &
(
  s=$(now); timeout -k 5 60 "$P" eval "$tree/tests/controls/data/two_kernels_ncu.cu" --task gemm_n7168_k5120 \
    --arch hopper --tasks-dir "$tree/tasks" --json >"$out/D-two-kernels-strict.jsonl" 2>&1; log two-kernels-strict $? $s
  s=$(now); timeout -k 5 "$(left)" "$P" eval "$S/hopper/mha_bwd_d128.cu" --task mha_bwd_d128 --arch hopper \
    --tasks-dir "$tree/tasks" --json >"$out/D-bwd-strict.jsonl" 2>&1; log bwd-strict $? $s
  s=$(now); timeout -k 5 "$(left)" "$build/tests/eval/gpu_stages/eval_backward_cli_gpu_test" >"$out/G-backward-cli.log" 2>&1; log backward-cli $? $s
) &
(
  for f in $S/broken/gemm_*.cu $S/hopper/mha_fwd_lse_d64.cu $S/hopper/mha_fwd_lse_d96.cu $S/hopper/mha_fwd_lse_d256.cu \
           $S/hopper/mha_fwd_lse_d64_causal.cu $S/hopper/mha_fwd_lse_d96_causal.cu $S/hopper/mha_fwd_lse_d256_causal.cu; do
    l=$(left); [ "$l" -lt 25 ] && { echo "$(basename $f) not judged (deadline)" >>"$out/E-c.skipped"; continue; }
    task=$(head -1 "$f" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
    timeout -k 5 "$l" "$P" eval "$f" --task "$task" --arch hopper --tasks-dir "$tree/tasks" --json >>"$out/E-c.jsonl" 2>>"$out/E-c.err"
  done
  log stream-c 0 $t0
) &
while [ -n "$(jobs -r)" ]; do sleep 10; archive; done
wait; archive
cat "$out/batch3-summary.txt"
grep -hE '^\[  (PASSED|FAILED)|FAILED|Failure' "$out"/F-hostile.log "$out"/G-backward-cli.log | head -30
python3 "$tree/benchmarks/device/verdicts.py" "$S" "$out/E-c.jsonl" "$out/D-two-kernels-strict.jsonl" \
  "$out/D-bwd-strict.jsonl"
cat "$out"/E-c.skipped 2>/dev/null
tail -12 "$out/L-loop.log"
