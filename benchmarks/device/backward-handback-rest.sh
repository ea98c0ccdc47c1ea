#!/bin/bash
# Device call: the other three backward tasks (d64 causal, d96, d96 causal) with every consumer
# thread handing a stage back, each alone on the GPU at the default racecheck deadline (which
# waits while the correctness check beside the sanitizer runs); see backward-handback.sh. Then the
# expert GEMM's verdict latency, strict, three times.
set -u
BATCH=batch-handback-rest DEFAULT_DEADLINE_S=420
source "$(dirname "${BASH_SOURCE[0]}")/clock.sh"
S=$tree/solutions
ev bwd-d64-causal 130 "$S/hopper/mha_bwd_d64_causal.cu" mha_bwd_d64_causal
ev bwd-d96 150 "$S/hopper/mha_bwd_d96.cu" mha_bwd_d96
ev bwd-d96-causal 140 "$S/hopper/mha_bwd_d96_causal.cu" mha_bwd_d96_causal
# The expert GEMM's latency with the worker's `info` call beside the compile, three times.
for i in 1 2 3; do
  ev "gemm-strict-$i" 60 "$S/hopper/gemm_bf16_nt_warp_specialized.cu" gemm_n7168_k5120
done
archive
cat "$out/$BATCH-summary.txt"
python3 "$tree/benchmarks/device/verdicts.py" "$S" "$out"/*.jsonl
