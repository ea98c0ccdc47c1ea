#!/usr/bin/env bash
# The report and trajectory viewer of a run judged on this GPU: `ptxbench demo` (the project's
# solutions replayed through the loop, GPU stages included), then `ptxbench report` into
# report/. Looked at on the CPU machine, the viewer's GPU parts (every stage's time, executed
# families with their FLOP share, kernels as launched, speed of light) show with real values; the
# report's screenshots in docs/images/ come from generated trajectories only.
set -u
source "$TREE/benchmarks/gpu-check/lib.sh"
s=$(now)
timeout -k 5 "$(left)" "$PTXBENCH" demo --out "$RESULTS/demo-run" --tasks-dir "$TREE/tasks" \
  >"$RESULTS/demo.log" 2>&1
log "demo (GPU stages)" $? "$s"
s=$(now)
"$PTXBENCH" report "$RESULTS/demo-run" --out "$RESULTS/report" --quiet >"$RESULTS/report.log" 2>&1
log "report with the viewer" $? "$s"
tail -5 "$RESULTS/report.log"
