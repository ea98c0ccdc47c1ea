#!/bin/bash
# Device call: racecheck's tool facts (tool-facts/racecheck.sh, now with tensor TMA refills);
# the backward with every consumer thread handing a stage back (racecheck follows
# that, docs/expert-attention-backward.md) at its default racecheck deadline, which now waits
# while the correctness check beside it runs: d64 (the cheapest), then the d = 128 pair for the
# speed goal; then the expert GEMM with every worker call timed (--sandbox off, a wrapper that
# logs each call's mode, start and end) to show where a GEMM verdict's time goes.
set -u
BATCH=batch-handback DEFAULT_DEADLINE_S=560
source "$(dirname "${BASH_SOURCE[0]}")/clock.sh"
S=$tree/solutions
s=$(now); OUT="$out/racecheck" bash "$tree/benchmarks/device/tool-facts/racecheck.sh" \
  >"$out/racecheck.log" 2>&1
log racecheck-tool-facts $? "$s"
ev bwd-d64 150 "$S/hopper/mha_bwd_d64.cu" mha_bwd_d64
ev bwd-d128 180 "$S/hopper/mha_bwd_d128.cu" mha_bwd_d128
ev bwd-d128-causal 160 "$S/hopper/mha_bwd_d128_causal.cu" mha_bwd_d128_causal
wrap=$out/worker-timed
cat >"$wrap" <<WRAP
#!/bin/bash
s=\$(date +%s.%N); "$build/src/ptxbench-worker" "\$@"; rc=\$?
echo "\$1 \$s \$(date +%s.%N) \$rc" >>"$out/worker-timeline.txt"; exit \$rc
WRAP
chmod +x "$wrap"
export PTXBENCH_WORKER=$wrap
for i in 1 2; do
  echo "eval $i $(date +%s.%N)" >>"$out/worker-timeline.txt"
  ev "gemm-timed-$i" 60 "$S/hopper/gemm_bf16_nt_warp_specialized.cu" gemm_n7168_k5120 \
    --sandbox off
  echo "end $i $(date +%s.%N)" >>"$out/worker-timeline.txt"
done
unset PTXBENCH_WORKER
ev gemm-strict 60 "$S/hopper/gemm_bf16_nt_warp_specialized.cu" gemm_n7168_k5120
archive
cat "$out/$BATCH-summary.txt" "$out/worker-timeline.txt" "$out/racecheck/racecheck-summary.txt"
python3 "$tree/benchmarks/device/verdicts.py" "$S" "$out"/*.jsonl
