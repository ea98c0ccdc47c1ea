#!/usr/bin/env bash
# On the GPU machine: benchmarks/attention_check.py over a list of candidates, each in its own
# process with a time limit (a hung kernel costs its limit, not the whole list), within a budget.
#   benchmarks/attention_check.sh JOBS [BUDGET_S=300]
# JOBS: one candidate a line, `<file.so> <task name> [sizes|-] [timing S|0]`, .so paths relative
# to the JOBS file's folder. TVM-FFI's Python package must be importable (PYTHONPATH).
set -u
jobs="$1"; budget="${2:-300}"
here="$(cd "$(dirname "$0")" && pwd)"; root="$(dirname "$here")"; dir="$(dirname "$jobs")"
export PYTHONUNBUFFERED=1
start=$(date +%s)
while read -r so task sizes tsz; do
  [ -z "${so:-}" ] && continue; case "$so" in \#*) continue;; esac
  if [ $(( $(date +%s) - start )) -gt "$budget" ]; then echo "=== $so on $task: NOT RUN (budget of ${budget} s spent)"; continue; fi
  a=(); [ -n "${sizes:-}" ] && [ "$sizes" != "-" ] && a+=("$sizes"); a+=(--time "${tsz:-4096}")
  echo "=== $so on $task (${a[*]})"
  s=$(date +%s)
  timeout 60 python3 "$here/attention_check.py" "$dir/$so" "$(ls "$root"/tasks/*/"$task".json)" "${a[@]}" 2>&1
  echo "=== rc=$? $(( $(date +%s) - s )) s"
done < "$jobs"
