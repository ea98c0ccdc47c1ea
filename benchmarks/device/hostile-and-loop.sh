#!/bin/bash
# Device call 3: the GPU hostile suite alone, then in parallel: the fine-tuning loop, the
# ncu fallback under the strict sandbox (two-kernel control), the backward CLI test and the
# solutions not judged in call 2.
set -u
BATCH=batch3 DEFAULT_DEADLINE_S=400
source "$(dirname "${BASH_SOURCE[0]}")/clock.sh"
S=$tree/solutions
s=$(now); timeout -k 5 190 "$build/tests/sandbox/sandbox_gpu_hostile_tests" >"$out/F-hostile.log" 2>&1; log hostile $? $s
archive
(
  s=$(now); OUT="$out/loop" STEPS="env model loop" PTXBENCH="$P" timeout -k 5 "$(left)" \
    bash "$tree/python/scripts/gpu_loop.sh" >"$out/L-loop.log" 2>&1; log loop $? $s
) &
(
  s=$(now); timeout -k 5 60 "$P" eval "$tree/tests/controls/data/two_kernels_ncu.cu" --task gemm_n7168_k5120 \
    --arch hopper --tasks-dir "$tree/tasks" --json >"$out/D-two-kernels-strict.jsonl" 2>&1; log two-kernels-strict $? $s
  s=$(now); timeout -k 5 "$(left)" "$P" eval "$S/hopper/mha_bwd_d128.cu" --task mha_bwd_d128 --arch hopper \
    --tasks-dir "$tree/tasks" --json >"$out/D-bwd-strict.jsonl" 2>&1; log bwd-strict $? $s
  s=$(now); timeout -k 5 "$(left)" "$build/tests/eval/gpu_stages/eval_backward_cli_gpu_test" >"$out/G-backward-cli.log" 2>&1; log backward-cli $? $s
) &
(
  for f in $S/broken/gemm_*.cu $S/hopper/mha_fwd_lse_d64.cu $S/hopper/mha_fwd_lse_d96.cu $S/hopper/mha_fwd_lse_d256.cu \
           $S/hopper/mha_fwd_lse_d64_causal.cu $S/hopper/mha_fwd_lse_d96_causal.cu $S/hopper/mha_fwd_lse_d256_causal.cu; do
    l=$(left); [ "$l" -lt 25 ] && { echo "$(basename $f) not judged (deadline)" >>"$out/E-c.skipped"; continue; }
    task=$(head -1 "$f" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
    timeout -k 5 "$l" "$P" eval "$f" --task "$task" --arch hopper --tasks-dir "$tree/tasks" --json >>"$out/E-c.jsonl" 2>>"$out/E-c.err"
  done
  log stream-c 0 $t0
) &
while [ -n "$(jobs -r)" ]; do sleep 10; archive; done
wait; archive
cat "$out/batch3-summary.txt"
grep -hE '^\[  (PASSED|FAILED)|FAILED|Failure' "$out"/F-hostile.log "$out"/G-backward-cli.log | head -30
python3 - "$out" "$S" <<'PY'
import json, sys, re, glob, os
expect = {}
for p in glob.glob(sys.argv[2] + "/*/*.cu"):
    m = re.search(r"expect=([A-Z_]+)", open(p).readline())
    if m: expect[os.path.basename(p)] = m.group(1)
for f in [sys.argv[1] + "/E-c.jsonl", sys.argv[1] + "/D-two-kernels-strict.jsonl", sys.argv[1] + "/D-bwd-strict.jsonl"]:
    if not os.path.exists(f): continue
    for line in open(f):
        line = line.strip()
        if not line.startswith("{"): continue
        r = json.loads(line)
        name = os.path.basename(r.get("source_name", "?"))
        w = [x for x in r.get("workloads", []) if x.get("headline")]
        sp = w[0].get("speedup") if w else None
        ok = "ok " if expect.get(name, "PASSED") == r["verdict"] else "BAD"
        st = " ".join(f"{s['stage'][:5]}={s['status'][:4]}:{s.get('seconds',0):.1f}" for s in r.get("stages", []))
        print(ok, name, r["verdict"], "expect", expect.get(name, "PASSED"), f"wall={r.get('wall_seconds',0):.1f} speedup={sp}", st)
        if ok == "BAD": print("   ", (r.get("message") or "")[:700])
        for s in r.get("stages", []):
            if s["stage"] in ("dynamic_sass", "sanitize") and s["status"] != "passed": print("    ", s["stage"], s["message"][:500])
PY
cat "$out"/E-c.skipped 2>/dev/null
tail -12 "$out/L-loop.log"
