#!/usr/bin/env bash
# The RL adapters against `ptxbench serve --gpus all` with the real worker, then 1,000 RL
# sessions at once while the GPU judges kernels (rl_load.py says what is checked). TRL and
# datasets come from the carried wheels (gpu-check.sh puts them on PYTHONPATH).
set -u
source "$TREE/benchmarks/gpu-check/lib.sh"
scratch_and_service

token=rl-adapters-token-0123456789
echo "gpu-check $token 256" >"$work/tokens"
echo '{"kind": "tiered"}' >"$work/reward.json"
"$PTXBENCH" serve --tokens "$work/tokens" --journal "$work/journal" --port 0 \
  --port-file "$work/port" ${SERVE_GPU_FLAGS:---gpus all} --workers 4 --reward "$work/reward.json" \
  --max-sessions-per-client 1200 --max-body-bytes 8388608 \
  2>"$RESULTS/serve.log" &
serve_pid=$!
for _ in $(seq 600); do [ -s "$work/port" ] && break; sleep 0.1; done
s=$(now)
PYTHONPATH="$TREE/python/ptxbench_client${PYTHONPATH:+:$PYTHONPATH}" timeout -k 5 "$(left)" \
  python3 "$TREE/benchmarks/gpu-check/rl_load.py" --url "http://127.0.0.1:$(cat "$work/port")" \
  --token "$token" --expert "$S/hopper/gemm_bf16_nt_warp_specialized.cu" \
  --broken "$S/broken/gemm_tail_writes_past_c.cu" ${RL_LOAD_FLAGS:-} \
  >"$RESULTS/rl-load.json" 2>>"$RESULTS/serve.log"
log "RL adapters and 1,000 sessions under GPU load" $? "$s"
kill -TERM "$serve_pid" 2>/dev/null
wait "$serve_pid"
log "serve drained and stopped (SIGTERM)" $? "$s"
serve_pid=""
