#!/usr/bin/env bash
# Regression: every expert, simple, broken and Blackwell solution and every anti-gaming control
# through `ptxbench eval` in strict mode, each against the verdict its first line names
# (verdicts.py). One `ptxbench eval` per task, one after another: within it the candidates compile
# in parallel and the GPU judges one at a time, as in any run. (Several processes judging on one
# GPU at once disturb each other: ncu's proof fails beside another profiled process, and timings
# move.) VERDICT_TASKS picks tasks (default: every task some file names, GEMM and d128 first). A file left
# unjudged at the deadline is listed in not-judged.txt, never counted as passing.
set -u
source "$TREE/benchmarks/gpu-check/lib.sh"
S="$TREE/solutions"
C="$TREE/tests/controls"
files=("$S"/hopper/*.cu "$S"/simple/*.cu "$S"/broken/*.cu "$S"/blackwell/*.cu "$C"/*.cu)
declare -A by_task
for f in "${files[@]}"; do
  key="$(header_field task "$f") $(header_field arch "$f")"
  by_task[$key]+="$f "
done
all_keys="$(printf '%s\n' "${!by_task[@]}" | sort)"
# The GEMM (most files, quickest) first, then the d128 tasks (the core ones, forward first).
mapfile -t keys < <(grep '^gemm' <<<"$all_keys"; grep '^mha_fwd_lse_d128' <<<"$all_keys"
                    grep '^mha_bwd_d128' <<<"$all_keys"; grep -v '^gemm\|_d128' <<<"$all_keys")
[[ -n "${VERDICT_TASKS:-}" ]] && mapfile -t keys < <(printf '%s\n' "${keys[@]}" | grep -E "^(${VERDICT_TASKS// /|}) ")
submitted=0
for key in "${keys[@]}"; do
  read -r task arch <<<"$key"
  # shellcheck disable=SC2206
  group=(${by_task[$key]})
  submitted=$((submitted + ${#group[@]}))
  l=$(left)
  if [[ "$l" -lt 40 ]]; then
    printf '%s not judged (part deadline)\n' "${group[@]##*/}" | tee -a "$RESULTS/not-judged.txt"
    continue
  fi
  s=$(now)
  timeout -k 5 "$l" "$PTXBENCH" eval "${group[@]}" --task "$task" --arch "${arch:-hopper}" \
    --tasks-dir "$TREE/tasks" --json --out "$RESULTS/$task-$arch.jsonl" \
    >/dev/null 2>"$RESULTS/$task-$arch.err"
  log "$task $arch (${#group[@]} files)" $? "$s"
done
python3 "$TREE/benchmarks/gpu-check/verdicts.py" "$S,$C" "$RESULTS"/*.jsonl | tee "$RESULTS/verdicts.txt"
cat "$RESULTS/not-judged.txt" 2>/dev/null
echo "$submitted files submitted; $(cat "$RESULTS"/*.jsonl 2>/dev/null | grep -c '"verdict"') records"
