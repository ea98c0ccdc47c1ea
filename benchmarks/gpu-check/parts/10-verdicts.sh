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

# The report's rates on a GPU run with a host-only trajectory: one turn of the expert GEMM
# (PASSED) and one of a run() without device code (INSTRUCTIONS_ABSENT on any machine), replayed
# through `ptxbench run`, then `ptxbench report`. Expected: correct 1 of 2, not_measured 0 (an
# INSTRUCTIONS_ABSENT on a GPU is a final verdict, in every denominator).
if [[ $(left) -ge 120 ]]; then
  work="$RESULTS/host-only-rates"
  replies="$work/replies"
  mkdir -p "$replies/gemm_n7168_k5120__hopper__none__s0" "$replies/gemm_n7168_k5120__hopper__none__s1"
  cp "$S/hopper/gemm_bf16_nt_warp_specialized.cu" "$replies/gemm_n7168_k5120__hopper__none__s0/turn-1.cu"
  cat >"$replies/gemm_n7168_k5120__hopper__none__s1/turn-1.cu" <<'CU'
// A run() that never launches a kernel: it zeroes C on the host side of the API. No device code,
// so the requested families cannot execute: INSTRUCTIONS_ABSENT on any machine.
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>

void run(tvm::ffi::TensorView a, tvm::ffi::TensorView b, tvm::ffi::TensorView c) {
  (void)a;
  (void)b;
  cudaMemset(c.data_ptr(), 0, static_cast<size_t>(c.size(0)) * c.size(1) * 2);
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
CU
  cat >"$work/run.yaml" <<YAML
out: $work/run
tasks: [gemm_n7168_k5120]
archs: [hopper]
contexts: [none]
samples: 2
turns: 1
evaluation: {gpu: true, parallel: 2}
models:
  - {name: replay, provider: replay, path: $replies}
YAML
  s=$(now)
  timeout -k 5 "$(left)" "$PTXBENCH" run --config "$work/run.yaml" --tasks-dir "$TREE/tasks" \
    >"$work/run.log" 2>&1
  log "host-only rates: run" $? "$s"
  "$PTXBENCH" report "$work/run" --out "$work/report" --quiet --tasks "$TREE/tasks" \
    >"$work/report.log" 2>&1
  log "host-only rates: report" $? "$s"
  python3 - "$work/report/tables/correctness.csv" <<'PY' | tee "$work/rates.txt"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    got = (r["correct_k"], r["correct_n"], r["not_measured"])
    ok = got == ("1", "2", "0")
    print(f"t={r['t']} correct {got[0]}/{got[1]} not_measured {got[2]}: "
          f"{'as expected' if ok else 'NOT as expected (want 1/2, 0)'}")
PY
fi
