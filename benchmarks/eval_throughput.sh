#!/bin/bash
# Verdicts per GPU-hour of `ptxbench eval --gpus` on real GPUs: N copies of a shipped solution
# (distinct files, so nothing is cached) judged with one worker per listed GPU.
#   benchmarks/eval_throughput.sh [GPUS=all] [COPIES=16] [SOLUTION]
set -euo pipefail
gpus="${1:-all}"
copies="${2:-16}"
solution="${3:-solutions/hopper/gemm_bf16_nt_warp_specialized.cu}"
ptxbench="${PTXBENCH_EXE:-build/src/ptxbench}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for i in $(seq "$copies"); do
  { cat "$solution"; echo "// copy $i"; } > "$work/copy-$i.cu"
done
task="$(head -1 "$solution" | sed -n 's/.*task=\([^ ]*\).*/\1/p')"
arch="$(head -1 "$solution" | sed -n 's/.*arch=\([^ ]*\).*/\1/p')"
if [ "$gpus" = all ]; then
  count="$(nvidia-smi -L | grep -c '^GPU ')"
else
  count="$(echo "$gpus" | tr ',' '\n' | grep -c .)"
fi
start="$(date +%s.%N)"
"$ptxbench" eval "$work"/copy-*.cu --task "$task" --arch "$arch" --gpus "$gpus" --json \
  > "$work/records.json" || true
end="$(date +%s.%N)"
python3 - "$work/records.json" "$start" "$end" "$count" <<'PY'
import json, sys
records = json.load(open(sys.argv[1]))
records = records if isinstance(records, list) else [records]
wall = float(sys.argv[3]) - float(sys.argv[2])
gpus = int(sys.argv[4])
verdicts = {}
for r in records:
    verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
print(f"{len(records)} verdicts in {wall:.1f} s on {gpus} GPU(s): "
      f"{len(records) / (wall / 3600) / gpus:.0f} verdicts per GPU-hour; {verdicts}")
PY
