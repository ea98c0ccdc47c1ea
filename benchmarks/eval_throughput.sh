#!/bin/bash
# The judge's speed on real GPUs, as issue 10 sets its goals (<= 10 s for one candidate,
# >= 400 verdicts per GPU-hour): the latency of one good candidate judged alone, then the
# verdicts per GPU-hour of COPIES distinct copies of it (nothing is cached) judged by
# `ptxbench eval --gpus GPUS`, later copies compiling on the CPU cores while earlier ones are on
# the GPUs. Prints a Markdown table to paste into docs/gpu-results/; with RESULTS_DIR set, the
# JSON Lines records stay there. SANDBOX=best-effort|off picks another sandbox than strict.
#   benchmarks/eval_throughput.sh BUILD_DIR [GPUS=all] [COPIES=16] [SOLUTION]
set -euo pipefail
if [ $# -lt 1 ] || [ ! -x "$1/src/ptxbench" ]; then
  echo "usage: $0 BUILD_DIR [GPUS=all] [COPIES=16] [SOLUTION]  (BUILD_DIR/src/ptxbench must exist)" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
ptxbench="$(cd "$1" && pwd)/src/ptxbench"
gpus="${2:-all}"
copies="${3:-16}"
solution="${4:-$root/solutions/hopper/gemm_bf16_nt_warp_specialized.cu}"
sandbox="${SANDBOX:-strict}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
task="$(head -1 "$solution" | sed -n 's/.*task=\([^ ]*\).*/\1/p')"
arch="$(head -1 "$solution" | sed -n 's/.*arch=\([^ ]*\).*/\1/p')"
if [ "$gpus" = all ]; then
  count="$(nvidia-smi -L | grep -c '^GPU ')"
  first=0
else
  count="$(echo "$gpus" | tr ',' '\n' | grep -c .)"
  first="${gpus%%,*}"
fi
now() { date +%s.%N; }

# Latency: one candidate alone on one GPU, the process from start to verdict.
{ cat "$solution"; echo "// latency"; } > "$work/latency.cu"
start="$(now)"
"$ptxbench" eval "$work/latency.cu" --task "$task" --arch "$arch" --gpus "$first" --json \
  --sandbox "$sandbox" \
  > "$work/latency.jsonl" || true
latency_end="$(now)"

# Throughput: the copies through the pipeline, one worker per GPU.
for i in $(seq "$copies"); do
  { cat "$solution"; echo "// copy $i"; } > "$work/copy-$i.cu"
done
throughput_start="$(now)"
"$ptxbench" eval "$work"/copy-*.cu --task "$task" --arch "$arch" --gpus "$gpus" --json \
  --sandbox "$sandbox" \
  > "$work/throughput.jsonl" || true
throughput_end="$(now)"
if [ -n "${RESULTS_DIR:-}" ]; then
  mkdir -p "$RESULTS_DIR"
  cp "$work/latency.jsonl" "$work/throughput.jsonl" "$RESULTS_DIR/"
fi
gpu_name="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader -i "$first" || echo unknown)"

python3 - "$work" "$start" "$latency_end" "$throughput_start" "$throughput_end" "$count" \
  "$copies" "$gpu_name" "$(basename "$solution")" "$task" "$sandbox" <<'PY'
import datetime, json, pathlib, sys
work = pathlib.Path(sys.argv[1])
start, latency_end, t_start, t_end = map(float, sys.argv[2:6])
gpus, copies = int(sys.argv[6]), int(sys.argv[7])
gpu_name, solution, task, sandbox = sys.argv[8:12]

def records(name):
    return [json.loads(line) for line in (work / name).read_text().splitlines() if line.strip()]

def verdicts(rs):
    counts = {}
    for r in rs:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"

latency = records("latency.jsonl")
throughput = records("throughput.jsonl")
latency_wall = latency_end - start
wall = t_end - t_start
per_gpu_hour = len(throughput) / (wall / 3600) / gpus if wall > 0 else 0
passed = sum(r["verdict"] == "PASSED" for r in throughput)
stages = ""
if latency:
    r = latency[0]
    stages = ", ".join(f"{s['stage']} {s['seconds']:.1f}" for s in r["stages"] if s["seconds"] > 0)
    headline = next((w for w in r.get("workloads", []) if w.get("headline")), {})
    speedup = headline.get("speedup")
print(f"### Judge speed, {datetime.date.today()} ({gpu_name}; {solution} on {task}, "
      f"sandbox {sandbox})")
print()
print("| figure | measured | goal |")
print("|---|---|---|")
if latency:
    print(f"| latency of one candidate (`ptxbench eval`, process start to verdict) | "
          f"{latency_wall:.1f} s ({latency[0]['verdict']}, record wall_seconds "
          f"{latency[0]['wall_seconds']:.1f} s, speedup {speedup}) | <= 10 s |")
    print(f"| its stages (s) | {stages} | |")
else:
    print(f"| latency of one candidate | no record ({latency_wall:.1f} s) | <= 10 s |")
print(f"| throughput, {copies} copies, compiles overlapped, {gpus} GPU(s) | "
      f"{len(throughput)} verdicts in {wall:.1f} s = **{per_gpu_hour:.0f} verdicts per GPU-hour** "
      f"({verdicts(throughput)}) | >= 400 |")
ok = latency and latency_wall <= 10 and per_gpu_hour >= 400 and passed == len(throughput) == copies
print()
print(f"goals {'met' if ok else 'NOT met'}: latency {latency_wall:.1f} s, "
      f"{per_gpu_hour:.0f} verdicts/GPU-hour, {passed}/{copies} PASSED")
PY
