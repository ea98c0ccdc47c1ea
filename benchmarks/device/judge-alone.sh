#!/bin/bash
# Device call 1: the judge alone on the GPU (latency, strict vs off, attention speed through
# ptxbench eval), the throughput benchmark, then the GPU suites that assert verdicts.
# Runs under scripts/gpu-check.sh's custom step ($build, $tree, $out set).
set -u
BATCH=batch1 DEFAULT_DEADLINE_S=530
source "$(dirname "${BASH_SOURCE[0]}")/clock.sh"
G=$tree/solutions/hopper/gemm_bf16_nt_warp_specialized.cu
ev A-gemm-strict-cold 120 "$G" gemm_n7168_k5120
ev A-gemm-strict 120 "$G" gemm_n7168_k5120
ev A-gemm-off 120 "$G" gemm_n7168_k5120 --sandbox off
ev A-gemm-strict-again 120 "$G" gemm_n7168_k5120
ev A-slow-ffma 90 "$tree/tests/eval/gpu_stages/data/gemm_naive.cu" gemm_n7168_k5120
for t in mha_fwd_lse_d128 mha_fwd_lse_d128_causal mha_bwd_d128 mha_bwd_d128_causal; do
  ev "A-$t" 150 "$tree/solutions/hopper/$t.cu" "$t"
done
# Throughput: 16 distinct copies of the expert GEMM, compiles overlapped.
l=$(left)
if [ "$l" -gt 120 ]; then
  s=$(now)
  RESULTS_DIR="$out/throughput" timeout -k 5 150 bash "$tree/benchmarks/eval_throughput.sh" "$build" 0 16 \
    >"$out/B-throughput.md" 2>"$out/B-throughput.err"
  log throughput "$?" "$s"
  archive
fi
# Suites that assert verdicts (their timings unused), in parallel until the deadline.
l=$(left)
suite() {  # name executable
  timeout -k 5 "$l" "$2" >"$out/C-$1.log" 2>&1
  printf '%-28s rc=%-3s\n' "$1" "$?" >>"$out/C-summary.txt"
}
suite hostile "$build/tests/sandbox/sandbox_gpu_hostile_tests" &
suite gpu-stages "$build/tests/eval/gpu_stages/eval_gpu_stages_test" &
suite rule "$build/tests/eval/correctness/gpu/eval_correctness_rule_gpu_test" &
while [ -n "$(jobs -r)" ]; do sleep 10; archive; done
wait
archive
cat "$out/$BATCH-summary.txt" "$out/C-summary.txt" 2>/dev/null
for f in "$out"/A-*.jsonl; do
  python3 - "$f" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    line = line.strip()
    if not line.startswith("{"): continue
    r = json.loads(line)
    st = " ".join(f"{s['stage'][:5]}={s['status'][:4]}:{s.get('seconds',0):.1f}" for s in r.get("stages", []))
    w = [x for x in r.get("workloads", []) if x.get("headline")]
    sp = w[0]["speedup"] if w else None
    print(sys.argv[1].split("/")[-1], r.get("verdict"), f"wall={r.get('wall_seconds',0):.1f}", f"speedup={sp}", r.get("sandbox"), st)
    if r.get("verdict") != "PASSED": print("   ", (r.get("message") or "")[:400])
PY
done
grep -h "verdicts per GPU-hour\|latency" "$out/B-throughput.md" 2>/dev/null | head
grep -hE '^\[  (PASSED|FAILED)|FAILED' "$out"/C-*.log | head -40
