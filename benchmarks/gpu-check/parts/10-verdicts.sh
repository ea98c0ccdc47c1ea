#!/usr/bin/env bash
# Regression: every expert, simple, broken and Blackwell solution and every anti-gaming control
# through `ptxbench eval` in strict mode, each against the verdict its first line names
# (verdicts.py). Four streams share the GPU, so their timings are not speed figures; the verdicts
# are. A file left unjudged at the deadline is listed in not-judged.txt, never counted as passing.
set -u
source "$TREE/benchmarks/gpu-check/lib.sh"
S="$TREE/solutions"
C="$TREE/tests/controls"
# Longest first, spread over the streams (the backward tasks take 60-100 s each alone).
mapfile -t slow < <(ls "$S"/hopper/mha_bwd_*.cu "$S"/simple/mha_bwd_*.cu "$S"/broken/mha_bwd_*.cu)
mapfile -t mid < <(ls "$S"/hopper/mha_fwd_*.cu "$S"/simple/mha_fwd_*.cu "$S"/broken/mha_fwd_*.cu)
mapfile -t fast < <(ls "$S"/hopper/gemm_*.cu "$S"/broken/gemm_*.cu "$S"/blackwell/*.cu "$C"/*.cu)
streams=(a b c d)
declare -A files
i=0
for f in "${slow[@]}" "${mid[@]}" "${fast[@]}"; do
  files[${streams[$((i % 4))]}]+="$f "
  i=$((i + 1))
done
for s in "${streams[@]}"; do
  # shellcheck disable=SC2086
  eval_stream "$s" -- ${files[$s]} &
done
wait
python3 "$TREE/benchmarks/gpu-check/verdicts.py" "$S,$C" "$RESULTS"/*.jsonl | tee "$RESULTS/verdicts.txt"
cat "$RESULTS/not-judged.txt" 2>/dev/null
echo "$i files submitted; $(cat "$RESULTS"/*.jsonl 2>/dev/null | grep -c '"verdict"') records"
