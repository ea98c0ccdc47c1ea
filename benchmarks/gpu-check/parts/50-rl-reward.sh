#!/usr/bin/env bash
# ptxbench as an RL trainer's reward, against the real worker: one batch (the expert GEMM, a broken
# GEMM, a reply without code) scored by the tiered reward with its parts; the same batch again
# must reuse every evaluation (idempotency keys); an RL episode's step on the expert must carry a
# number, never null, and its reward parts (rl_reward.py checks all of it).
set -u
source "$TREE/benchmarks/gpu-check/lib.sh"
scratch_and_service

echo "gpu-check rl-reward-token-0123456789 16" >"$work/tokens"
echo '{"kind": "tiered"}' >"$work/reward.json"
"$PTXBENCH" serve --tokens "$work/tokens" --journal "$work/journal" --port 0 \
  --port-file "$work/port" --gpus all --workers 2 --reward "$work/reward.json" \
  --max-body-bytes 8388608 2>"$RESULTS/serve.log" &
serve_pid=$!
for _ in $(seq 600); do [ -s "$work/port" ] && break; sleep 0.1; done
s=$(now)
PYTHONPATH="$TREE/python/ptxbench_client" timeout -k 5 "$(left)" python3 - "$(cat "$work/port")" \
  "$S/hopper/gemm_bf16_nt_warp_specialized.cu" "$S/broken/gemm_tail_writes_past_c.cu" \
  >"$RESULTS/rl-reward.json" 2>>"$RESULTS/serve.log" <<'PY'
import json, sys, time
from ptxbench_client import Client, candidate_key
client = Client(f"http://127.0.0.1:{sys.argv[1]}", "rl-reward-token-0123456789")
task = "gemm_n7168_k5120"
expert, broken = (open(p).read() for p in sys.argv[2:4])
items = [{"key": candidate_key(task, "hopper", t), "task": task, "arch": "hopper", "code": t}
         for t in (expert, broken)]
items.append({"key": "no-code", "task": task, "arch": "hopper", "reply": "no code"})
start = time.time()
first = client.evaluate_batch(items, timeout_s=900)
seconds = time.time() - start
again = client.submit_batch(items)
episode = client.reset("hopper", task=task, max_turns=1)
step = client.step(episode, "```cuda\n" + expert + "\n```\n")
out = {"batch_seconds": round(seconds, 1),
       "results": [{k: r.get(k) for k in ("key", "reward", "parts")} for r in first],
       "reused": [r["reused"] for r in again["items"]],
       "step": {"reward": step.reward, "parts": step.reward_parts}}
problems = []
verdicts = [r["parts"]["verdict"] for r in first]
if verdicts[0] != "PASSED": problems.append(f"expert: {verdicts[0]}, not PASSED")
if first[1]["parts"]["correct"]: problems.append("broken GEMM judged correct")
if verdicts[2] != "NO_CODE" or first[2]["reward"] != -0.5: problems.append("no-code reward")
if any(r["reward"] is None for r in first): problems.append("a null reward on a GPU machine")
if not all(out["reused"]): problems.append("a retried key was evaluated again")
if step.reward is None or step.reward_parts.get("verdict") != "PASSED":
    problems.append(f"episode step: reward {step.reward}")
out["problems"] = problems
print(json.dumps(out, indent=1))
sys.exit(1 if problems else 0)
PY
log "rl reward (batch, keys, episode)" $? "$s"
kill "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; serve_pid=""
