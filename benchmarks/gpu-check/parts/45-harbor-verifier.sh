#!/bin/bash
# An exported Harbor task's verifier (tests/test.sh) on a GPU, as Harbor runs it after an agent,
# without a container (no Docker engine on the GPU machine): the shipped solution must score 1
# (exit 0), the stub 0 (exit 1). On a CPU the same verifier fails loudly (exit 2, no reward):
# tests/harbor/harbor_export_check.sh. Sourced by scripts/gpu-check.sh (lib.sh's variables).
s=$(now)
tasks="$RESULTS/tasks"
"$PTXBENCH" export-tasks --format harbor "$tasks" --task gemm_n7168_k5120 --arch hopper \
  --tasks-dir "$TREE/tasks" >"$RESULTS/export.txt" 2>&1
task="$tasks/gemm_n7168_k5120-hopper"
for what in solved stub; do
  mkdir -p "$RESULTS/$what"
  if [ "$what" = solved ]; then
    PTXBENCH_WORKSPACE="$RESULTS/$what" bash "$task/solution/solve.sh"
  else
    cp "$task/environment/workspace/kernel.cu" "$RESULTS/$what/"
  fi
  status=0
  PTXBENCH_WORKSPACE="$RESULTS/$what" PTXBENCH_VERIFIER_LOGS="$RESULTS/$what/logs" \
    PTXBENCH_EXE="$PTXBENCH" PTXBENCH_EVAL_FLAGS="--tasks-dir $TREE/tasks" \
    timeout -k 5 "$(left)" bash "$task/tests/test.sh" >"$RESULTS/$what.out" 2>"$RESULTS/$what.err" \
    || status=$?
  echo "$what: exit $status, reward $(cat "$RESULTS/$what/logs/reward.txt" 2>/dev/null || echo none)" \
    | tee -a "$RESULTS/summary.txt"
done
grep -q 'solved: exit 0, reward 1' "$RESULTS/summary.txt" && grep -q 'stub: exit 1, reward 0' "$RESULTS/summary.txt"
log "harbor verifier (solved 1, stub 0)" $? "$s"
