#!/bin/bash
# Device call: the fine-tuning loop end to end (python/scripts/gpu_loop.sh, STEPS="env model
# loop") beside one `ptxbench eval` stream over the attention solutions not yet judged on the
# H200 in strict mode (their timings are taken beside the loop: verdicts, not speed figures).
set -u
BATCH=batch-loop DEFAULT_DEADLINE_S=540
source "$(dirname "${BASH_SOURCE[0]}")/clock.sh"
S=$tree/solutions
(
  s=$(now); OUT="$out/loop" STEPS="env model loop" PTXBENCH="$P" timeout -k 5 "$(left)" \
    bash "$tree/python/scripts/gpu_loop.sh" >"$out/loop.log" 2>&1; log loop $? "$s"
) &
(
  for t in ${ATTENTION_TASKS:-mha_bwd_d64 mha_bwd_d96 mha_bwd_d64_causal mha_bwd_d96_causal \
      mha_fwd_lse_d64 mha_fwd_lse_d96 mha_fwd_lse_d256 mha_fwd_lse_d64_causal \
      mha_fwd_lse_d96_causal mha_fwd_lse_d256_causal}; do
    l=$(left); [ "$l" -lt 30 ] && { echo "$t not judged (deadline)" >>"$out/$BATCH-summary.txt"; continue; }
    s=$(now)
    timeout -k 5 "$l" "$P" eval "$S/hopper/$t.cu" --task "$t" --arch hopper --tasks-dir "$tree/tasks" \
      --json >>"$out/attention.jsonl" 2>>"$out/attention.err"
    log "$t" $? "$s"; archive
  done
) &
while [ -n "$(jobs -r)" ]; do sleep 10; archive; done
wait; archive
cat "$out/$BATCH-summary.txt"
python3 "$tree/benchmarks/device/verdicts.py" "$S" "$out/attention.jsonl"
cat "$out/loop/summary.md" 2>/dev/null; tail -25 "$out/loop.log"
