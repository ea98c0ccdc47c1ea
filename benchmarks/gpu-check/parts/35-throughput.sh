#!/usr/bin/env bash
# Throughput and latency of the judge on this GPU: one good GEMM candidate judged alone, then 16
# distinct copies of it through one `ptxbench eval --gpus all` (benchmarks/eval_throughput.sh:
# verdicts per GPU-hour, p50/p95 per stage). The GPU is this part's alone.
set -u
source "$TREE/benchmarks/gpu-check/lib.sh"
s=$(now)
RESULTS_DIR="$RESULTS" timeout -k 5 "$(left)" bash "$TREE/benchmarks/eval_throughput.sh" "$BUILD" all 16 \
  >"$RESULTS/eval-throughput.md" 2>"$RESULTS/eval-throughput.err"
log "eval_throughput (GEMM x16)" $? "$s"
cat "$RESULTS/eval-throughput.md"
