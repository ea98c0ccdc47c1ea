#!/bin/bash
# `ptxbench run --slurm` on a real single-node Slurm (slurm_cluster.sh): a three-task run as a
# job array of three shards, each writing its own run folder; `ptxbench merge` into one run
# (twice: the second changes nothing); `ptxbench report` on it; a shard of another
# configuration refused. Replay replies without code and --no-gpu keep it quick on a CPU.
set -euo pipefail
ptxbench="$1"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
cleanup() { "$here/slurm_cluster.sh" stop "$work/cluster" || true; rm -rf "$work"; }
trap cleanup EXIT
eval "export $("$here/slurm_cluster.sh" start "$work/cluster" | tail -1)"

cd "$work"
run=(run --model replayed --provider replay --replay "$here/data/replies" --no-gpu --turns 1
     --tasks gemm_n7168_k5120,gemm_n4096_k4096,gemm_n2048_k4096 --archs hopper)
"$ptxbench" "${run[@]}" --out "$work/grid" --slurm "--time=10" | tee submit.txt
job="$(sed -n 's/^submitted job array \([0-9]*\) .*/\1/p' submit.txt)"
test -n "$job"
grep -q -- '--shard "$shard/3"' "$work/grid/slurm/array.sh"
for _ in $(seq 600); do
  [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
  sleep 0.2
done
test -z "$(squeue -h -j "$job")" || { echo "the array did not finish"; exit 1; }
for i in 0 1 2; do
  test -f "$work/grid/shards/shard-$i/run.json" || { cat "$work/grid/slurm/shard-$i.log"; exit 1; }
  test "$(ls "$work/grid/shards/shard-$i/trajectories" | wc -l)" -eq 1
done

"$ptxbench" merge "$work/grid" | tee merge1.txt
grep -q '3 shards merged into .*: 3 trajectories added, 0 updated, 0 unchanged' merge1.txt
test "$(ls "$work/grid/merged/trajectories" | wc -l)" -eq 3
python3 - "$work/grid/merged/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
assert sorted(run["grid"]["tasks"]) == ["gemm_n2048_k4096", "gemm_n4096_k4096", "gemm_n7168_k5120"], run["grid"]
assert len(run["merged_from"]) == 3
PY
"$ptxbench" merge "$work/grid" | tee merge2.txt
grep -q '0 trajectories added, 0 updated, 3 unchanged' merge2.txt
"$ptxbench" report "$work/grid/merged" --out "$work/report" > /dev/null
test -f "$work/report/summary.md"
grep -q replayed "$work/report/summary.md"

# A shard of a different configuration (two turns, both run) is refused, and nothing is written.
other=(run --model replayed --provider replay --replay "$here/data/replies" --no-gpu --all-turns --turns 2
       --tasks gemm_n7168_k5120,gemm_n4096_k4096,gemm_n2048_k4096 --archs hopper)
"$ptxbench" "${other[@]}" --shard 0/3 --out "$work/other" > /dev/null 2>&1 || true
status=0
"$ptxbench" merge "$work/other" "$work/grid/shards/shard-1" --out "$work/mixed" 2> mixed.txt || status=$?
test "$status" -eq 2
grep -q 'config: evaluation differs' mixed.txt  # all_turns_without_gpu
test ! -e "$work/mixed/run.json"
echo "slurm: array of 3 shards ran, merged, reported; a mismatched shard was refused"
