#!/bin/bash
# Device call: the d64 backward (the cheapest backward) alone, with racecheck given up to 330 s
# instead of its 15 s default (`--racecheck-timeout`): does racecheck finish on the expert
# backward, and what does it report?
set -u
BATCH=batch-race DEFAULT_DEADLINE_S=380
source "$(dirname "${BASH_SOURCE[0]}")/clock.sh"
S=$tree/solutions
ev bwd-d64-racecheck 370 "$S/hopper/mha_bwd_d64.cu" mha_bwd_d64 --racecheck-timeout 330
cat "$out/$BATCH-summary.txt"
python3 "$tree/benchmarks/device/verdicts.py" "$S" "$out"/*.jsonl
