#!/usr/bin/env bash
# A small `ptxbench study` with real GPU verdicts (docs/study.md): a replayed base model (the
# Ampere-style broken GEMM: INSTRUCTIONS_NOT_EXECUTED on the GPU), a replay teacher (the expert
# GEMM, so each repair is verified on the GPU) with a replayed first-person explanation, two data
# variants trained on a tiny random model (LoRA, a few steps on the GPU) and served by the builtin
# server, one held-out task by rule, then the comparison page. Then the same study again: every
# step is skipped and the page is the same bytes. Needs the training packages (torch,
# transformers, peft, trl) in $PTXBENCH_TRAIN_PYTHON (default python3).
set -u
source "$TREE/benchmarks/gpu-check/lib.sh"
py="${PTXBENCH_TRAIN_PYTHON:-python3}"
work="$RESULTS/study"
mkdir -p "$work/base" "$work/teacher" "$work/explainer"
export PYTHONPATH="$TREE/python/ptxbench_train/src${PYTHONPATH:+:$PYTHONPATH}"

s=$(now)
"$py" -m ptxbench_train make-tiny-model "$work/tiny-model" --size tiny \
  --corpus "$TREE/python/ptxbench_train/tests/data/rows.jsonl" >"$RESULTS/tiny-model.log" 2>&1
log "tiny random model" $? "$s"

for task in gemm_n7168_k5120 gemm_n4096_k4096; do
  cp "$TREE/solutions/broken/gemm_ampere_mma_sync.cu" "$work/base/$task.cu"
done
cp "$TREE/solutions/hopper/gemm_bf16_nt_warp_specialized.cu" "$work/teacher/turn-1.cu"
cat >"$work/explainer/turn-1.md" <<'TEXT'
I start from the feedback: the kernel is correct on every workload, but the machine code that ran
holds no wgmma and no TMA, only the older warp-level mma and cp.async, so the requested Hopper
families were never executed. The tiles are staged by every thread with asynchronous copies and
multiplied a warp at a time, which is the Ampere way. I considered only retuning the tile shape,
but that keeps the same instructions. The change that answers the task is to let one producer
warp issue tensor-memory copies into a ring of shared-memory stages guarded by barriers, and to
have the consumer warpgroups issue asynchronous warpgroup multiplies from those stages.
TEXT
cat >"$work/study.yaml" <<YAML
out: out
grid:
  tasks: [gemm_n7168_k5120, gemm_n4096_k4096]
  archs: [hopper]
  contexts: [none]
  samples: 1
  turns: 1
  evaluation: {parallel: 2, compile_cache: compile-cache}
base: {name: base, model: {provider: replay, path: base}, weights: tiny-model}
teachers:
  - {name: expert, model: {provider: replay, path: teacher}, explainer: {provider: replay, path: explainer}}
fixit: {parallel: 2, repair: {turns: 1, concurrency: 1}}
splits:
  heldout:
    - {name: sizes, tasks: [gemm_n4096_k4096]}
training: {recipe: tiny, max_steps: 4, python: "$py"}
serving: {engine: builtin, max_new_tokens: 64, max_tokens: 64, temperature: 0}
variants:
  - {name: fixit-short, data: fixit, reasoning: {length: short}}
  - {name: both, data: both, balance: {mode: volume}, reasoning: {length: short}}
YAML
s=$(now)
(cd "$work" && timeout -k 5 "$(left)" "$PTXBENCH" study study.yaml --python "$py") \
  >"$RESULTS/study.log" 2>&1
log "study (GPU verdicts)" $? "$s"
cp "$work/out/comparison/comparison.md" "$RESULTS/comparison.md" 2>/dev/null
cp "$work/out/comparison/comparison.html" "$RESULTS/comparison.html" 2>/dev/null
grep -h '"verified"' "$work"/out/steps/data/*/data/train/fixit.jsonl 2>/dev/null |
  grep -c '"verified": *true' >"$RESULTS/verified-rows.txt"
echo "verified training rows: $(cat "$RESULTS/verified-rows.txt")" | tee -a "$RESULTS/summary.txt"

s=$(now)
(cd "$work" && timeout -k 5 "$(left)" "$PTXBENCH" study study.yaml --python "$py") \
  >"$RESULTS/study-again.log" 2>&1
rc=$?
cmp -s "$RESULTS/comparison.md" "$work/out/comparison/comparison.md" && same=same || same=DIFFERENT
log "study again ($(grep -c 'done, skipped' "$RESULTS/study-again.log") skipped, page $same)" $rc "$s"
tail -20 "$RESULTS/study.log"
