#!/bin/bash
# Exports one task as a Harbor task folder and runs its verifier (tests/test.sh) twice, the way
# Harbor would after an agent: on the workspace's stub (COMPILE_ERROR, reward 0) and on the
# shipped solution put in place by solution/solve.sh (static stages on this CPU machine, so
# NOT_RUN: the verifier fails loudly and writes no reward, since a kernel judged without a GPU is
# not worth 0). task.toml is read with Python's TOML reader against Harbor's current keys.
set -euo pipefail
ptxbench="$1"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$ptxbench" export-tasks --format harbor "$out/tasks" --task gemm_n7168_k5120 --arch hopper
task="$out/tasks/gemm_n7168_k5120-hopper"
for f in task.toml instruction.md environment/Dockerfile environment/workspace/kernel.cu \
         tests/test.sh solution/solve.sh solution/kernel.cu; do
  test -f "$task/$f" || { echo "missing $f"; exit 1; }
done
test -x "$task/tests/test.sh"
grep -q 'ptxbench_task = "gemm_n7168_k5120"' "$task/task.toml"
grep -q '/workspace/kernel.cu' "$task/instruction.md"
python3 - "$task/task.toml" <<'PY'
import sys, tomllib
config = tomllib.load(open(sys.argv[1], "rb"))
environment = config["environment"]
assert "memory" not in environment and "storage" not in environment, environment  # deprecated
assert environment["memory_mb"] >= 16384 and environment["gpus"] == 1, environment
assert environment["gpu_types"] == ["H100", "H200"], environment
assert config["agent"]["user"] == "agent" and config["verifier"]["user"] == "root", config
PY

run_verifier() {  # workspace logs -> exit status of test.sh
  PTXBENCH_WORKSPACE="$1" PTXBENCH_VERIFIER_LOGS="$2" PTXBENCH_EXE="$ptxbench" \
    PTXBENCH_EVAL_FLAGS="--no-gpu" "$task/tests/test.sh" && return 0 || return $?
}

mkdir -p "$out/stub" "$out/solved"
cp "$task/environment/workspace/kernel.cu" "$out/stub/"
status=0; run_verifier "$out/stub" "$out/logs-stub" || status=$?
test "$status" -eq 1 || { echo "stub: test.sh exited $status, expected 1"; exit 1; }
grep -q '"verdict": "COMPILE_ERROR"' "$out/logs-stub/result.json"
test "$(cat "$out/logs-stub/reward.txt")" = 0

PTXBENCH_WORKSPACE="$out/solved" "$task/solution/solve.sh"
status=0; run_verifier "$out/solved" "$out/logs-solved" 2> "$out/solved.err" || status=$?
cat "$out/logs-solved/result.json"
test "$status" -eq 2 || { echo "solution: test.sh exited $status, expected 2 (NOT_RUN here)"; exit 1; }
grep -q '"verdict": "NOT_RUN"' "$out/logs-solved/result.json"
grep -q '"GMMA"' "$out/logs-solved/result.json"
grep -q 'NOT JUDGED: the GPU stages did not run' "$out/solved.err"
test ! -e "$out/logs-solved/reward.txt" || { echo "a reward without a GPU"; exit 1; }
echo "harbor export: verifier ran on the stub and the shipped solution as expected"
