#!/usr/bin/env bash
# The engine: the same candidates through `ptxbench eval`, `ptxbench run` (replay provider),
# `ptxbench serve` (the Python client) and `ptxbench fixit` (the demo's repair cycle on the GEMM
# solutions) must get the same verdicts, and speedups within timing noise (compare.py).
set -u
source "$TREE/benchmarks/gpu-check/lib.sh"
scratch_and_service
gemm=gemm_n7168_k5120
cands=("$S/hopper/gemm_bf16_nt_warp_specialized.cu" "$S/broken/gemm_tail_writes_past_c.cu"
       "$S/hopper/mha_fwd_lse_d128.cu")

# 1. eval
s=$(now)
for f in "${cands[@]}"; do
  "$PTXBENCH" eval "$f" --task "$(header_field task "$f")" --arch hopper --tasks-dir "$TREE/tasks" \
    --json >>"$RESULTS/eval.jsonl" 2>>"$RESULTS/eval.err"
done
log eval $? "$s"

# 2. run, one turn per trajectory, replies replayed from the same files.
mkdir -p "$work/replies/${gemm}__hopper__none__s0" "$work/replies/${gemm}__hopper__none__s1" \
         "$work/replies/mha_fwd_lse_d128__hopper__none__s0"
cp "${cands[0]}" "$work/replies/${gemm}__hopper__none__s0/turn-1.cu"
cp "${cands[1]}" "$work/replies/${gemm}__hopper__none__s1/turn-1.cu"
cp "${cands[2]}" "$work/replies/mha_fwd_lse_d128__hopper__none__s0/turn-1.cu"
cat >"$work/run.yaml" <<YAML
out: $work/run
tasks: [$gemm, mha_fwd_lse_d128]
archs: [hopper]
contexts: [none]
samples: 2
turns: 1
evaluation: {gpu: true, parallel: 2}
models:
  - {name: replay, provider: replay, path: $work/replies}
YAML
s=$(now)
timeout -k 5 "$(left)" "$PTXBENCH" run --config "$work/run.yaml" --tasks-dir "$TREE/tasks" \
  >"$RESULTS/run.log" 2>&1
log run $? "$s"
cp -r "$work/run/trajectories" "$RESULTS/run-trajectories" 2>/dev/null

# 3. serve, through the Python client.
echo "gpu-check engine-token-0123456789 8" >"$work/tokens"
"$PTXBENCH" serve --tokens "$work/tokens" --journal "$work/journal" --port 0 \
  --port-file "$work/port" --gpus all --workers 1 2>"$RESULTS/serve.log" &
serve_pid=$!
for _ in $(seq 600); do [ -s "$work/port" ] && break; sleep 0.1; done
s=$(now)
PYTHONPATH="$TREE/python/ptxbench_client" timeout -k 5 "$(left)" python3 - "$(cat "$work/port")" \
  "${cands[@]}" >"$RESULTS/serve.jsonl" 2>>"$RESULTS/serve.log" <<'PY'
import json, re, sys
from ptxbench_client import Client
client = Client(f"http://127.0.0.1:{sys.argv[1]}", "engine-token-0123456789")
for path in sys.argv[2:]:
    code = open(path).read()
    task = re.search(r"task=(\S+)", code.splitlines()[0]).group(1)
    record = client.evaluate(task, "hopper", code=code)
    record["source_name"] = path.rsplit("/", 1)[-1]
    print(json.dumps(record), flush=True)
PY
log serve $? "$s"
kill "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; serve_pid=""

# 4. fixit: the demo's repair cycle restricted to the GEMM solutions (broken -> verified repair).
g="$work/sol"; mkdir -p "$g/hopper" "$g/broken" "$g/fixit/explanations"
cp "$S"/hopper/gemm_*.cu "$g/hopper/"; cp "$S"/broken/gemm_tail_writes_past_c.cu "$g/broken/"
cp "$S"/fixit/explanations/gemm_* "$g/fixit/explanations/" 2>/dev/null
python3 - "$S/fixit/catalog.json" "$g/fixit/catalog.json" <<'PY'
import json, sys
catalog = json.load(open(sys.argv[1]))
catalog["repairs"] = [r for r in catalog["repairs"] if "gemm_tail_writes_past_c" in r["broken"]]
json.dump(catalog, open(sys.argv[2], "w"), indent=1)
PY
s=$(now)
timeout -k 5 "$(left)" "$PTXBENCH" fixit demo --solutions "$g" --tasks-dir "$TREE/tasks" \
  --out "$work/fixit" >"$RESULTS/fixit.log" 2>&1
log fixit $? "$s"
cp -r "$work/fixit" "$RESULTS/fixit-folder" 2>/dev/null

python3 "$TREE/benchmarks/gpu-check/compare_engine.py" "$RESULTS" | tee "$RESULTS/compare.txt"
