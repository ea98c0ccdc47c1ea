#!/bin/bash
# On a GPU machine: `ptxbench serve --gpus all` serving an evaluation of the shipped Hopper GEMM
# and an RL episode (turn 1 a reply without code, turn 2 the solution as a reply), through the
# Python client; prints each verdict, reward and speedup, then drains the service with SIGTERM.
#   tests/serve/gpu_episode.sh [PTXBENCH_EXE]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
ptxbench="${1:-$root/build/src/ptxbench}"
work="$(mktemp -d)"
trap 'kill "$serve" 2>/dev/null || true; rm -rf "$work"' EXIT
echo "gpu-check gpu-check-token-0123456789 8" > "$work/tokens"
"$ptxbench" serve --tokens "$work/tokens" --journal "$work/journal" --port 0 \
  --port-file "$work/port" --gpus all &
serve=$!
for _ in $(seq 600); do [ -s "$work/port" ] && break; sleep 0.1; done
solution="$root/solutions/hopper/gemm_bf16_nt_warp_specialized.cu"
mkdir -p "$work/replies"
echo "Let me think about the tiling first." > "$work/replies/turn-1.md"
{ echo 'Here is the kernel:'; echo '```cuda'; cat "$solution"; echo '```'; } > "$work/replies/turn-2.md"
PYTHONPATH="$root/python/ptxbench_client" python3 - "$(cat "$work/port")" "$solution" <<'PY'
import sys, time
from ptxbench_client import Client
client = Client(f"http://127.0.0.1:{sys.argv[1]}", "gpu-check-token-0123456789")
start = time.time()
record = client.evaluate("gemm_n7168_k5120", "hopper", code=open(sys.argv[2]).read())
headline = next(w for w in record["workloads"] if w["headline"])
print(f"evaluation: {record['verdict']} speedup {headline.get('speedup')} "
      f"gpu {record['toolchain'].get('gpu')} in {time.time() - start:.0f} s")
PY
PYTHONPATH="$root/python/ptxbench_client" python3 "$root/python/ptxbench_client/examples/rl_loop.py" \
  --url "http://127.0.0.1:$(cat "$work/port")" --token gpu-check-token-0123456789 \
  --task gemm_n7168_k5120 --max-turns 2 --replies "$work/replies"
kill -TERM "$serve"
rc=0; wait "$serve" || rc=$?
echo "serve exited $rc; journal: $(ls "$work/journal/done" | wc -l) done, $(ls "$work/journal/accepted" | wc -l) queued"
