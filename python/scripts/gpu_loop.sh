#!/usr/bin/env bash
# The training stack on a GPU machine (docs/training.md, "Measured on a GPU"): builds a ~0.6 B
# parameter random model from a config, trains LoRA steps on synthetic rows of a few lengths
# (step time, tokens/s, peak memory; one run at the reference recipe's 65,536-token length),
# serves it with the built-in server (serving throughput); the whole loop is `ptxbench study`
# (benchmarks/gpu-check/parts/60-study.sh). Results go to $OUT (default ./gpu-loop-out): summary.jsonl, summary.md,
# the loss plot, and logs.tar.gz (every log, run card and the loop's report; no weights).
#
#   PTXBENCH=path/to/ptxbench bash python/scripts/gpu_loop.sh
#   STEPS="env model train long serve loop" (default: all)
#   MODEL_SIZE=gpu TRAIN_LENGTHS="4096 16384" LONG_LENGTH=65536 (smaller ones for a CPU smoke run)
#
# Python packages: the machine's python3 with torch/transformers/peft/accelerate; trl and datasets
# are taken from .whl/ (wheels carried in) when python3 lacks them.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
pkg="$root/python/ptxbench_train"
results="${OUT:-$root/gpu-loop-out}"
work=/tmp/gpu-loop
steps="${STEPS:-env model train long serve loop}"
model_size="${MODEL_SIZE:-gpu}"
read -r -a lengths <<<"${TRAIN_LENGTHS:-4096 16384}"
long="${LONG_LENGTH:-65536}"
mkdir -p "$results" "$work"
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1
python="${PYTHON:-python3}"

if ! "$python" -c 'import trl, datasets' 2>/dev/null && ls "$root"/.whl/*.whl >/dev/null 2>&1; then
  "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site "$root"/.whl/*.whl || exit 1
  export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONPATH="$pkg/src${PYTHONPATH:+:$PYTHONPATH}"
cli=("$python" -m ptxbench_train)
model="$work/model"
summary="$work/summary.jsonl"
: >"$summary"
archive() { # logs, run cards, reports; no weights, optimiser states or synthetic rows
  tar -czf "$results/logs.tar.gz" -C "$work" --exclude ./model --exclude '*.safetensors' --exclude '*.pt' \
    --exclude '*.bin' --exclude 'rows-*.jsonl' --exclude tiny-model . 2>/dev/null
}
record() { echo "$1" >>"$summary"; echo "gpu-loop: $1"; archive; }
want() { [[ " $steps " == *" $1 "* ]]; }
timed() { # NAME CMD...: run, log to $work/NAME.log, record status and seconds
  local name="$1" start=$SECONDS; shift
  "$@" >"$work/$name.log" 2>&1
  local rc=$?
  record "{\"step\": \"$name\", \"rc\": $rc, \"seconds\": $((SECONDS - start))}"
  [ $rc -eq 0 ] || tail -30 "$work/$name.log"
  return $rc
}

if want env; then
  { nvidia-smi; "$python" -c 'import torch, transformers, peft, trl, datasets, accelerate
for m in (torch, transformers, peft, trl, datasets, accelerate): print(m.__name__, m.__version__)
print("cuda", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")'; } \
    >"$work/env.log" 2>&1
  cat "$work/env.log"
fi

ensure_model() {
  [ -f "$model/ptxbench_tiny.json" ] && return 0
  local corpus=("$pkg/tests/data/rows.jsonl")
  for f in "$root"/context/hopper/*.md "$root"/docs/*.md; do [ -f "$f" ] && corpus+=("$f"); done
  timed model "${cli[@]}" make-tiny-model "$model" --size "$model_size" --vocab-size 8192 \
    --max-positions $((long + 1024)) \
    --corpus "${corpus[@]}" && cat "$model/ptxbench_tiny.json"
}
if want model; then ensure_model; fi

# Synthetic rows: Fixit-shaped conversations of about TOKENS tokens each, from the docs' text.
synth() { # OUT ROWS TOKENS
  "$python" - "$@" "$model" "$root" <<'PY'
import json, sys
from pathlib import Path
from transformers import AutoTokenizer
out, n, tokens, model, root = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], Path(sys.argv[5])
tok = AutoTokenizer.from_pretrained(model, local_files_only=True)
text = "\n".join(p.read_text() for p in sorted((root / "context").rglob("*.md")) + sorted((root / "docs").glob("*.md")))
ids = tok(text, add_special_tokens=False)["input_ids"]
while len(ids) < tokens * 2:
    ids = ids + ids
with open(out, "w") as f:
    for i in range(n):
        start = (i * 977) % (len(ids) - tokens)
        body = tok.decode(ids[start:start + tokens])
        quarter = len(body) // 4
        msgs = [{"role": "system", "content": body[:quarter // 4], "loss": False},
                {"role": "user", "content": body[quarter // 4:quarter], "loss": False},
                {"role": "assistant", "content": body[quarter:2 * quarter], "loss": False},
                {"role": "user", "content": body[2 * quarter:3 * quarter], "loss": False},
                {"role": "assistant", "content": body[3 * quarter:], "loss": True}]
        f.write(json.dumps({"id": f"synth-{tokens}-{i}", "kind": "fixit", "split": "heldout" if i % 8 == 7 else "train",
                            "verified": True, "messages": msgs, "provenance": {"synthetic": True}}) + "\n")
PY
}

recipe_file() { # OUT MAX_LENGTH MAX_STEPS BATCH
  cat >"$1" <<EOF
name: h200-measure-$2
lora_rank: 32
lora_alpha: 32
learning_rate: 4.65e-4
lr_scheduler: linear
epochs: 5
max_steps: $3
batch_size: $4
max_length: $2
bf16: true
gradient_checkpointing: true
save_strategy: steps
save_steps: $3
eval_strategy: "no"
logging_steps: 1
verified_only: true
EOF
}

card_line() { # NAME RUN_DIR
  "$python" - "$1" "$2/run_card.json" <<'PY' >>"$summary"
import json, sys
c = json.load(open(sys.argv[2]))
hw = c["hardware"]
print(json.dumps({"measure": sys.argv[1], "steps": c["steps"], "train_seconds": c["train_seconds"],
  "step_seconds": round(c["train_seconds"] / max(c["steps"], 1), 3),
  "tokens_per_second": c["train_tokens_per_second"], "tokens_seen": c["tokens_seen"],
  "max_length": c["recipe"]["max_length"], "batch": c["recipe"]["batch_size"],
  "gpu": hw["gpus"], "gpu_peak_allocated_gib": hw.get("gpu_peak_allocated_gib"),
  "gpu_peak_reserved_gib": hw.get("gpu_peak_reserved_gib"), "train_loss": [c["train_loss_first"], c["train_loss_last"]]}))
PY
  tail -1 "$summary"
}

ensure_rows() { # LENGTH: 64 rows just under LENGTH tokens and a 20-step recipe
  [ -f "$work/rows-$1.jsonl" ] || synth "$work/rows-$1.jsonl" 64 $(($1 - 200))
  [ -f "$work/recipe-$1.yaml" ] || recipe_file "$work/recipe-$1.yaml" "$1" 20 2
}

if want train; then
  ensure_model
  for len in "${lengths[@]}"; do
    ensure_rows $len
    timed "train-$len" "${cli[@]}" train --base "$model" --data "$work/rows-$len.jsonl" \
      --out "$work/train-$len" --recipe "$work/recipe-$len.yaml" && card_line "train-$len" "$work/train-$len"
  done
  cp "$work/train-${lengths[0]}/loss.png" "$results/loss-${lengths[0]}.png" 2>/dev/null
fi

if want long; then  # the reference recipe's length: rows of ~64,000 tokens, batch 1 and 2
  ensure_model
  [ -f "$work/rows-$long.jsonl" ] || synth "$work/rows-$long.jsonl" 8 $((long * 64 / 65 - 1000))
  for batch in 1 2; do
    recipe_file "$work/recipe-$long-b$batch.yaml" "$long" 3 $batch
    timed "train-$long-b$batch" "${cli[@]}" train --base "$model" --data "$work/rows-$long.jsonl" \
      --out "$work/train-$long-b$batch" --recipe "$work/recipe-$long-b$batch.yaml" \
      && card_line "train-$long-b$batch" "$work/train-$long-b$batch"
  done
fi

if want serve; then
  ensure_model
  adapter="$work/train-${lengths[0]}/adapter"
  [ -d "$adapter" ] || adapter=""
  rm -f "$work/ready.json"
  "${cli[@]}" serve --engine builtin --base "$model" --served-name base ${adapter:+--adapter tuned=$adapter} \
    --port 0 --ready-file "$work/ready.json" --max-new-tokens 128 >"$work/serve.log" 2>&1 &
  server=$!
  for _ in $(seq 300); do [ -f "$work/ready.json" ] && break; sleep 1; done
  if [ -f "$work/ready.json" ]; then
    url="$("$python" -c 'import json; print(json.load(open("/tmp/gpu-loop/ready.json"))["base_url"])')"
    for run in base:1 base:4 ${adapter:+tuned:1}; do
      name="${run%%:*}" conc="${run##*:}"
      timed "bench-$name-c$conc" "${cli[@]}" bench --base-url "$url" --model "$name" --requests 8 \
        --concurrency "$conc" --max-tokens 128 --out "$work/bench-$name-c$conc.json" \
        && "$python" -c "import json,sys; d=json.load(open(sys.argv[1])); d['measure']=sys.argv[2]; print(json.dumps(d))" \
             "$work/bench-$name-c$conc.json" "serve-$name-c$conc" >>"$summary"
    done
  else
    record '{"step": "serve", "rc": 1, "error": "the server did not start"}'
  fi
  kill -TERM $server 2>/dev/null; wait $server
  record "{\"step\": \"serve-stop\", \"rc\": $?}"
fi

if want loop; then
  # The whole loop (base run, Fixit, train, serve, tuned run, comparison) is `ptxbench study`:
  # benchmarks/gpu-check/parts/60-study.sh runs a small one with the GPU stages on.
  record '{"step": "loop", "rc": null, "status": "NOT RUN: moved to benchmarks/gpu-check/parts/60-study.sh (ptxbench study)"}'
fi

"$python" - "$summary" <<'PY' >"$results/summary.md"
import json, sys
print("| what | figures |\n|---|---|")
for line in open(sys.argv[1]):
    d = json.loads(line)
    name = d.pop("measure", None) or d.pop("step", "?")
    print(f"| {name} | {', '.join(f'{k} {v}' for k, v in d.items())} |")
PY
cp "$summary" "$results/summary.jsonl"
archive
cat "$results/summary.md"
