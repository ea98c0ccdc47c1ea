#!/bin/bash
# On a GPU machine: `ptxbench serve --gpus all` (default sandbox strict; SANDBOX=best-effort|off
# to choose another) serving an evaluation of the shipped Hopper GEMM and an RL episode (turn 1
# a reply without code, turn 2 the solution as a reply) through the Python client, then a
# SIGTERM drain with one evaluation under way and one queued (--workers 1). Prints a Markdown summary to
# paste into docs/gpu-results/; exits 1 when a check fails.
#   tests/serve/gpu_episode.sh BUILD_DIR
set -euo pipefail
if [ $# -lt 1 ] || [ ! -x "$1/src/ptxbench" ]; then
  echo "usage: $0 BUILD_DIR  (BUILD_DIR/src/ptxbench must exist)" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/../.." && pwd)"
ptxbench="$(cd "$1" && pwd)/src/ptxbench"
sandbox="${SANDBOX:-strict}"
work="$(mktemp -d)"
serve=""
trap '[ -n "$serve" ] && kill "$serve" 2>/dev/null; rm -rf "$work"' EXIT
token=gpu-check-token-0123456789
failed=0
check() {  # what failed, when the condition ($2...) does not hold
  local what="$1"
  shift
  if ! "$@"; then echo "- FAILED: $what"; failed=1; fi
}
echo "gpu-check $token 8" > "$work/tokens"
start_serve() {
  rm -f "$work/port"
  "$ptxbench" serve --tokens "$work/tokens" --journal "$work/journal" --port 0 \
    --port-file "$work/port" --gpus all --workers 1 --sandbox "$sandbox" 2>> "$work/serve.log" &
  serve=$!
  for _ in $(seq 600); do [ -s "$work/port" ] && break; sleep 0.1; done
  [ -s "$work/port" ] || { cat "$work/serve.log" >&2; echo "serve did not start" >&2; exit 1; }
}
start_serve
solution="$root/solutions/hopper/gemm_bf16_nt_warp_specialized.cu"
mkdir -p "$work/replies"
echo "Let me think about the tiling first." > "$work/replies/turn-1.md"
{ echo 'Here is the kernel:'; echo '```cuda'; cat "$solution"; echo '```'; } > "$work/replies/turn-2.md"
export PYTHONPATH="$root/python/ptxbench_client"

echo "### ptxbench serve on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader -i 0 || echo 'an unknown GPU'), $(date -u +%F), sandbox $sandbox"
echo
python3 - "$(cat "$work/port")" "$solution" "$token" <<'PY' || { echo "- FAILED: an evaluation of the solution was not PASSED"; failed=1; }
import sys, time
from ptxbench_client import Client
client = Client(f"http://127.0.0.1:{sys.argv[1]}", sys.argv[3])
code = open(sys.argv[2]).read()
for label in ("first (cold worker)", "second (warm service)"):
    start = time.time()
    record = client.evaluate("gemm_n7168_k5120", "hopper", code=code + f"\n// {label}\n")
    headline = next((w for w in record["workloads"] if w["headline"]), {})
    print(f"- evaluation, {label}: {record['verdict']}, speedup {headline.get('speedup')}, "
          f"sandbox {record['sandbox']}, submit to record {time.time() - start:.1f} s "
          f"(record wall_seconds {record['wall_seconds']:.1f})")
    if record["verdict"] != "PASSED":
        print(f"  - message: {record['message']}")
        sys.exit(1)
PY
echo "- RL episode (replayed replies):"
python3 "$root/python/ptxbench_client/examples/rl_loop.py" \
  --url "http://127.0.0.1:$(cat "$work/port")" --token "$token" \
  --task gemm_n7168_k5120 --max-turns 2 --replies "$work/replies" > "$work/episode.log" || true
sed 's/^/  - /' "$work/episode.log"
check "the episode's second turn was not PASSED" grep -q "turn 2: PASSED" "$work/episode.log"

# Drain: one evaluation under way and, with --workers 1, one queued behind it: the first is
# recorded during the drain, the second runs after the restart.
ids="$(python3 - "$(cat "$work/port")" "$solution" "$token" <<'PY'
import sys, time
from ptxbench_client import Client
client = Client(f"http://127.0.0.1:{sys.argv[1]}", sys.argv[3])
code = open(sys.argv[2]).read()
print(" ".join(client.submit("gemm_n7168_k5120", "hopper", code=code + f"\n// drain {i}\n")
               for i in range(2)))
PY
)"
sleep 2
kill -TERM "$serve"
drain_start="$(date +%s)"
rc=0; wait "$serve" || rc=$?
serve=""
done_count="$(ls "$work/journal/done" | wc -l)"
queued_count="$(ls "$work/journal/accepted" | wc -l)"
echo "- SIGTERM with 2 evaluations submitted: exit $rc after $(( $(date +%s) - drain_start )) s; journal $done_count done, $queued_count queued, $(ls "$work/journal/running" | wc -l) running"
check "the drain did not exit 0" [ "$rc" = 0 ]
check "the drain did not record the evaluation under way and keep the queued one" \
  test "$queued_count" = 1 -a -f "$work/journal/done/${ids%% *}.json"
start_serve
python3 - "$(cat "$work/port")" "$token" $ids <<'PY'
import sys
from ptxbench_client import Client
client = Client(f"http://127.0.0.1:{sys.argv[1]}", sys.argv[2])
for evaluation_id in sys.argv[3:]:
    print(f"- after restart, {evaluation_id}: {client.wait(evaluation_id)['verdict']}")
PY
kill -TERM "$serve"; wait "$serve" || true; serve=""
echo "- journal after restart: $(ls "$work/journal/done" | wc -l) done, $(ls "$work/journal/accepted" | wc -l) queued"
check "a job stayed queued after the restart" [ "$(ls "$work/journal/accepted" | wc -l)" = 0 ]
exit "$failed"
