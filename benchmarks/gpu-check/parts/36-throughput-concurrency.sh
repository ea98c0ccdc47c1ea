#!/usr/bin/env bash
# Sharing the GPU between candidates (`--gpu-concurrency`, docs/running.md "Sizing"): real
# verdicts per GPU-hour for distinct copies of the expert GEMM and the expert attention forward
# d128, judged one at a time (1) and N at a time (GPU_CONCURRENCY, default 4), on one GPU; and
# the timing figures of both runs side by side (headline speedup, the candidate's relative
# noise), which sharing must leave unchanged within their run-to-run noise: timing holds the GPU
# alone. About 7 minutes of GPU time; copies left when the part's deadline nears are skipped.
set -u
source "$TREE/benchmarks/gpu-check/lib.sh"
n="${GPU_CONCURRENCY:-4}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# copies SOLUTION COUNT NAME: distinct sources (nothing is cached) in $work/NAME/.
copies() {
  mkdir -p "$work/$3"
  for i in $(seq "$2"); do { cat "$1"; echo "// copy $i"; } >"$work/$3/copy-$i.cu"; done
}

# judge NAME CONCURRENCY: one `ptxbench eval` over the copies on GPU 0, timed end to end.
judge() {
  local name=$1 c=$2 f task arch s
  f=$(ls "$work/$name"/copy-*.cu | head -1)
  task=$(header_field task "$f"); arch=$(header_field arch "$f")
  if [[ $(left) -lt 60 ]]; then echo "$name c=$c not run (part deadline)" | tee -a "$RESULTS/not-judged.txt"; return; fi
  s=$(now)
  timeout -k 5 "$(left)" "$PTXBENCH" eval "$work/$name"/copy-*.cu --task "$task" --arch "${arch:-hopper}" \
    --tasks-dir "$TREE/tasks" --gpus 0 --gpu-concurrency "$c" --json \
    >"$RESULTS/$name-c$c.jsonl" 2>"$RESULTS/$name-c$c.err"
  local rc=$?
  echo "$name c$c $(( $(now) - s ))" >>"$RESULTS/walls.txt"
  log "$name concurrency $c" $rc "$s"
}

copies "$TREE/solutions/hopper/gemm_bf16_nt_warp_specialized.cu" 16 gemm
copies "$TREE/solutions/hopper/mha_fwd_lse_d128.cu" 3 attention_fwd
judge gemm 1
judge gemm "$n"
judge attention_fwd 1
judge attention_fwd "$n"

python3 - "$RESULTS" <<'PY' | tee -a "$RESULTS/summary.txt"
import json, pathlib, statistics, sys
results = pathlib.Path(sys.argv[1])
walls = {}
for line in (results / "walls.txt").read_text().splitlines() if (results / "walls.txt").exists() else []:
    name, c, ms = line.split()
    walls[(name, c)] = int(ms) / 1000
print("| stream | concurrency | verdicts | wall s | verdicts/GPU-h | speedup p50 (min-max) | candidate noise p50 |")
print("|---|---|---|---|---|---|---|")
for (name, c), wall in sorted(walls.items()):
    path = results / f"{name}-{c}.jsonl"
    records = [json.loads(l) for l in path.read_text().splitlines() if l.strip()] if path.exists() else []
    speedups, noise = [], []
    verdicts = {}
    for r in records:
        verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
        for w in r.get("workloads", []):
            if w.get("headline") and w.get("speedup") is not None:
                speedups.append(w["speedup"])
                if w.get("candidate"):
                    noise.append(w["candidate"]["relative_noise"])
    per_h = len(records) / (wall / 3600) if wall > 0 else 0
    sp = f"{statistics.median(speedups):.3f} ({min(speedups):.3f}-{max(speedups):.3f})" if speedups else "none"
    nz = f"{statistics.median(noise):.4f}" if noise else "none"
    vs = ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())) or "none"
    print(f"| {name} | {c} | {len(records)} ({vs}) | {wall:.1f} | {per_h:.0f} | {sp} | {nz} |")
PY
