#!/bin/bash
# `ptxbench run --slurm` on a real single-node Slurm (slurm_cluster.sh): a three-task run as a
# job array of three shards, each writing its own run folder; `ptxbench merge` into one run
# (twice: the second changes nothing); `ptxbench report` on it; the script resubmitted by hand
# (`sbatch RUN/slurm/array.sh`, docs/slurm.md) keeps the user's sbatch options; a run folder with
# a space works and one with a newline is refused; a shard of another configuration refused.
# Replay replies without code and --no-gpu keep it quick on a CPU.
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
grid="$work/the grid"  # a space in the run folder: its #SBATCH lines are quoted
"$ptxbench" "${run[@]}" --out "$grid" --slurm "--partition=test --time=10" | tee submit.txt
job="$(sed -n 's/^submitted job array \([0-9]*\) .*/\1/p' submit.txt)"
test -n "$job"
grep -q -- '--shard "$shard/3"' "$grid/slurm/array.sh"
wait_for() {
  for _ in $(seq 600); do
    [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && break
    sleep 0.2
  done
  test -z "$(squeue -h -j "$1")" || { echo "the array $1 did not finish"; exit 1; }
}
wait_for "$job"
scontrol show job "$job" | grep -q 'TimeLimit=00:10:00'
scontrol show job "$job" | grep -q 'Partition=test '
for i in 0 1 2; do
  test -f "$grid/shards/shard-$i/run.json" || { cat "$grid/slurm/shard-$i.log"; exit 1; }
  test "$(ls "$grid/shards/shard-$i/trajectories" | wc -l)" -eq 1
  test -f "$grid/slurm/shard-$i.log"  # the log path with its space
done

"$ptxbench" merge "$grid" | tee merge1.txt
grep -q '3 shards merged into .*: 3 trajectories added, 0 updated, 0 unchanged' merge1.txt
test "$(ls "$grid/merged/trajectories" | wc -l)" -eq 3
python3 - "$grid/merged/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
assert sorted(run["grid"]["tasks"]) == ["gemm_n2048_k4096", "gemm_n4096_k4096", "gemm_n7168_k5120"], run["grid"]
assert len(run["merged_from"]) == 3
PY
"$ptxbench" merge "$grid" | tee merge2.txt
grep -q '0 trajectories added, 0 updated, 3 unchanged' merge2.txt
"$ptxbench" report "$grid/merged" --out "$work/report" > /dev/null
test -f "$work/report/summary.md"
grep -q replayed "$work/report/summary.md"

# Resubmitted by hand, as docs/slurm.md says, the array keeps its options (they are in the script).
again="$(sbatch --parsable "$grid/slurm/array.sh")"
again="${again%%;*}"
wait_for "$again"
scontrol show job "$again" | grep -q 'TimeLimit=00:10:00' \
  || { scontrol show job "$again"; echo "the resubmitted array lost --time"; exit 1; }
"$ptxbench" merge "$grid" | tee merge3.txt
grep -q '0 trajectories added, 0 updated, 3 unchanged' merge3.txt

# A newline in the run folder would end an #SBATCH line and add a command: refused, nothing run.
status=0
"$ptxbench" "${run[@]}" --out "$work/bad"$'\n'"touch $work/injected" --slurm "" 2> bad.txt || status=$?
test "$status" -eq 2 || { cat bad.txt; exit 1; }
grep -q 'an #SBATCH line cannot hold' bad.txt
test ! -e "$work/injected"

# A shard of a different configuration (two turns, both run) is refused, and nothing is written.
other=(run --model replayed --provider replay --replay "$here/data/replies" --no-gpu --all-turns --turns 2
       --tasks gemm_n7168_k5120,gemm_n4096_k4096,gemm_n2048_k4096 --archs hopper)
"$ptxbench" "${other[@]}" --shard 0/3 --out "$work/other" > /dev/null 2>&1 || true
status=0
"$ptxbench" merge "$work/other" "$grid/shards/shard-1" --out "$work/mixed" 2> mixed.txt || status=$?
test "$status" -eq 2
grep -q 'config: evaluation differs' mixed.txt  # all_turns_without_gpu
test ! -e "$work/mixed/run.json"
echo "slurm: array of 3 shards ran, merged, reported; a mismatched shard was refused"
