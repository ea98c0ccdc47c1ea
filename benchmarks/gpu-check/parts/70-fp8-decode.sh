#!/usr/bin/env bash
# The FP8 GEMM and decode attention families: their experts and broken controls through
# `ptxbench eval` in strict mode, each against the verdict its first line names (verdicts.py),
# on the task it names; then the FP8 expert on every gemm_fp8 task and the decode expert on both
# decode tasks, for the speedup against the library (cuBLASLt FP8 with per-tensor scales; cuDNN
# SDPA with a padding mask) on this card. Goals (issue 42): FP8 expert >= 0.95x cuBLASLt on
# gemm_fp8_n7168_k5120, decode expert >= 0.95x the library on the long-KV workload (S = 32768).
# The speedups are in each record's headline workload (speedups.txt lists them with the card).
set -u
source "$TREE/benchmarks/gpu-check/lib.sh"
S="$TREE/solutions"
fp8=("$S"/hopper/gemm_fp8_*.cu "$S"/simple/gemm_fp8_*.cu "$S"/broken/gemm_fp8_*.cu
     "$S"/blackwell/gemm_fp8_*.cu)
decode=("$S"/hopper/mha_decode_*.cu "$S"/broken/mha_decode_*.cu)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$RESULTS/card.txt" 2>&1

# First the trusted side alone: the fp64 references against double precision on the CPU, and
# cuBLASLt FP8 / cuDNN decode against the references (GPU unit tests, gtest filter on the new ones).
s=$(now)
timeout -k 5 240 ninja -C "$BUILD" -k 0 -j"$(nproc)" eval_gpu_kernels_test \
  eval_correctness_reference_gpu_test >"$RESULTS/build.log" 2>&1
log "build (GPU unit tests)" $? "$s"
for t in tests/eval/gpu_stages/eval_gpu_kernels_test \
  tests/eval/correctness/gpu/eval_correctness_reference_gpu_test; do
  s=$(now)
  timeout -k 5 300 "$BUILD/$t" --gtest_filter='*Fp8*:*Decode*' >>"$RESULTS/gpu-unit-tests.log" 2>&1
  rc=$?
  log "${t##*/} (FP8, decode)" "$rc" "$s"
done
grep -E '^\[  (PASSED|FAILED) ' "$RESULTS/gpu-unit-tests.log"

# Controls and experts on the task each header names (the unpromoted-accumulation control names
# the long-K task; the others the core shape and the batch-16 decode).
judge_group() {  # name files...
  local name=$1; shift
  declare -A by_task=()
  local f key
  for f in "$@"; do
    key="$(header_field task "$f") $(header_field arch "$f")"
    by_task[$key]+="$f "
  done
  for key in "${!by_task[@]}"; do
    read -r task arch <<<"$key"
    # shellcheck disable=SC2206
    local group=(${by_task[$key]})
    local l s
    l=$(left)
    if [[ "$l" -lt 40 ]]; then
      printf '%s not judged (part deadline)\n' "${group[@]##*/}" | tee -a "$RESULTS/not-judged.txt"
      continue
    fi
    s=$(now)
    timeout -k 5 "$l" "$PTXBENCH" eval "${group[@]}" --task "$task" --arch "${arch:-hopper}" \
      --tasks-dir "$TREE/tasks" --json --out "$RESULTS/$name-$task-${arch:-hopper}.jsonl" \
      >/dev/null 2>"$RESULTS/$name-$task-${arch:-hopper}.err"
    log "$name $task ${arch:-hopper} (${#group[@]} files)" $? "$s"
  done
}
judge_group fp8 "${fp8[@]}"
judge_group decode "${decode[@]}"
python3 "$TREE/benchmarks/gpu-check/verdicts.py" "$S" "$RESULTS"/fp8-*.jsonl \
  "$RESULTS"/decode-*.jsonl | tee "$RESULTS/verdicts.txt"

# The experts across their families (the other shapes and the batch-64 decode).
sweep() {  # name expert tasks...
  local name=$1 expert=$2; shift 2
  local task l s
  for task in "$@"; do
    [[ "$task" == "$(header_field task "$expert")" ]] && continue  # judged above
    l=$(left)
    if [[ "$l" -lt 40 ]]; then
      echo "$(basename "$expert") on $task not judged (part deadline)" | tee -a "$RESULTS/not-judged.txt"
      continue
    fi
    s=$(now)
    timeout -k 5 "$l" "$PTXBENCH" eval "$expert" --task "$task" --arch hopper \
      --tasks-dir "$TREE/tasks" --json --out "$RESULTS/$name-$task.jsonl" \
      >/dev/null 2>"$RESULTS/$name-$task.err"
    log "$name $task" $? "$s"
  done
}
sweep sweep-fp8 "$S/hopper/gemm_fp8_nt_warp_specialized.cu" gemm_fp8_n7168_k5120 \
  gemm_fp8_n4096_k14336 gemm_fp8_n4096_k4096 gemm_fp8_n5120_k17408
sweep sweep-decode "$S/hopper/mha_decode_split_kv.cu" mha_decode_b16_d128 mha_decode_b64_d128

# One line per expert record: task, verdict, headline speedup against the library, the card.
python3 - "$TREE/benchmarks" "$RESULTS" "$(cat "$RESULTS/card.txt")" <<'PY' | tee "$RESULTS/speedups.txt"
import glob, os, sys
sys.path.insert(0, sys.argv[1])
from evaluation_records import read_evaluations
folder, card = sys.argv[2], sys.argv[3]
for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
    for record in read_evaluations(path):
        name = os.path.basename(record.get("source_name", "?"))
        if name not in ("gemm_fp8_nt_warp_specialized.cu", "mha_decode_split_kv.cu"):
            continue
        headline = [w for w in record.get("workloads", []) if w.get("headline")]
        speedup = headline[0].get("speedup") if headline else None
        print(f"{name} {record.get('task')} "
              f"{record.get('verdict')} speedup={speedup} card={card}")
PY
cat "$RESULTS/not-judged.txt" 2>/dev/null
true
