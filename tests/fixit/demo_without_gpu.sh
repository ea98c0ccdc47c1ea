#!/bin/sh
# `ptxbench fixit demo --no-gpu` as a CPU machine runs it: the demo run, mine, balance, repair
# with the replay teacher through the real evaluator's static stages, verify, explain, export.
# It must complete, name every row unverified, export them only marked "verified": false, and
# the export must load with Hugging Face `datasets`.
set -eu
out="$1"
rm -rf "$out"
"$PTXBENCH_EXE" fixit demo --no-gpu --out "$out" >"$out.log" 2>&1 || { cat "$out.log"; exit 1; }
grep -q "unverified" "$out.log" || { echo "the demo does not say which rows are unverified"; exit 1; }
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
# The broken controls the demo replayed (run.json declares each with its expected verdict).
solutions = json.load(open(f"{out}/source-run/run.json"))["config"]["solutions"]
controls = [s["id"] for s in solutions if s["id"].startswith("broken__")]
assert controls, "the demo run declares no broken control"
n = len(controls)
mined = [json.loads(l) for l in open(f"{out}/mined.jsonl")]
assert len(mined) == n, f"{len(mined)} mined rows, expected the {n} broken controls"
assert sorted(m["source"]["trajectory"] for m in mined) == sorted(controls)
verified = [json.loads(l) for l in open(f"{out}/verified.jsonl")]
assert [v["status"] for v in verified] == ["unverified"] * n, [v["status"] for v in verified]
explained = [json.loads(l) for l in open(f"{out}/explained.jsonl")]
assert all(e["reasoning"] for e in explained), [e["rejections"] for e in explained]
import glob
exports = glob.glob(f"{out}/export/demo/*/README.md")
assert len(exports) == 1, exports  # one explanation variant: export/demo/<length>-<explainer>/
folder = exports[0].rsplit("/", 1)[0]
rows = [json.loads(l) for split in ("train", "heldout") for l in open(f"{folder}/{split}/fixit.jsonl")]
assert len(rows) == n and not any(r["verified"] for r in rows)
assert all(r["provenance"]["trajectory"].startswith("broken__") for r in rows)
card = open(f"{folder}/README.md").read()
assert "No row was verified on a GPU." in card
print(folder)
PY
# Retrieval from a folder made without a GPU: nothing verified to retrieve, and it says so; with
# --include-unverified the demo's repairs are in the system prompt.
"$PTXBENCH_EXE" prompt gemm_n7168_k5120 --context retrieval --fixit "$out" --system-only \
  >"$out.prompt" 2>"$out.prompt.err"
grep -q "no verified, explained repair to retrieve" "$out.prompt.err" || {
  echo "prompt --context retrieval does not say that it has nothing to retrieve:"; cat "$out.prompt.err"; exit 1; }
"$PTXBENCH_EXE" prompt gemm_n7168_k5120 --context retrieval --fixit "$out" --include-unverified \
  --system-only >"$out.prompt" 2>/dev/null
grep -q "### Repair 1:" "$out.prompt" || { echo "no repair retrieved with --include-unverified"; exit 1; }
# The same from run.yaml's retrieval.fixit (no --fixit flag): the note names that field and folder.
printf 'My kernel:\n```cuda\n__global__ void k() {}\n```\n' >"$out.reply.md"
cat >"$out.run.yaml" <<YAML
out: $out.retrieval-run
tasks: [gemm_n7168_k5120]
archs: [hopper]
contexts: [retrieval]
samples: 1
turns: 1
retrieval: {fixit: "$out"}
evaluation: {gpu: false}
models: [{name: replayed, provider: replay, path: "$out.reply.md"}]
YAML
"$PTXBENCH_EXE" run --config "$out.run.yaml" >"$out.run.log" 2>&1 || true
grep -q "retrieval.fixit: $out: no verified, explained repair to retrieve" "$out.run.log" || {
  echo "run with retrieval.fixit does not name the folder it has nothing to retrieve from:"
  cat "$out.run.log"; exit 1; }
folder="$(dirname "$(ls "$out"/export/demo/*/README.md)")"
HF_DATASETS_OFFLINE=1 HF_HOME="$out.hf" \
  "$PYTHON_EXE" "$(dirname "$0")/load_with_datasets.py" "$folder"
