#!/bin/bash
# Device call 2: every other solution through `ptxbench eval` (two streams), the GEMM controls,
# the backward CLI test, the Fixit GPU cycle (GEMM solutions) and the serve episode, in parallel
# groups (verdicts asserted; timings unused). Under scripts/gpu-check.sh's custom step.
set -u
BATCH=batch2 DEFAULT_DEADLINE_S=540
source "$(dirname "${BASH_SOURCE[0]}")/clock.sh"
S=$tree/solutions
done_in_1=" mha_fwd_lse_d128 mha_fwd_lse_d128_causal mha_bwd_d128 mha_bwd_d128_causal "
files=()
for f in $S/hopper/*.cu $S/simple/*.cu $S/broken/mha_*.cu $S/broken/gemm_*.cu; do
  n=$(basename "$f" .cu)
  [[ "$f" == */hopper/* && "$done_in_1" == *" $n "* ]] && continue
  files+=("$f")
done
stream() {  # name files...: one eval per file (each names its own task), compiles overlapped
  local name=$1; shift
  local s; s=$(now)
  for f in "$@"; do
    local l; l=$(left); [ "$l" -lt 25 ] && { echo "$(basename $f) not judged (deadline)" >>"$out/E-$name.jsonl.skipped"; continue; }
    local task; task=$(head -1 "$f" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
    timeout -k 5 "$l" "$P" eval "$f" --task "$task" --arch hopper --tasks-dir "$tree/tasks" --json \
      >>"$out/E-$name.jsonl" 2>>"$out/E-$name.err"
  done
  log "stream-$name" $? $s
}
{ grep -i profil /proc/driver/nvidia/params; id; } >"$out/D-diag.txt" 2>&1
# Phase 1: the GPU hostile suite alone (it counts every ptxbench-worker of the machine).
s=$(now); timeout -k 5 200 "$build/tests/sandbox/sandbox_gpu_hostile_tests" >"$out/F-hostile.log" 2>&1; log hostile $? $s
archive
# Phase 2, in parallel groups.
half=$(( ${#files[@]} / 2 ))
stream a "${files[@]:0:$half}" &
stream b "${files[@]:$half}" &
(
  s=$(now); timeout -k 5 300 "$build/tests/controls/controls_eval_test" >"$out/G-controls.log" 2>&1; log controls $? $s
  s=$(now); timeout -k 5 "$(left)" "$build/tests/eval/gpu_stages/eval_backward_cli_gpu_test" >"$out/G-backward-cli.log" 2>&1; log backward-cli $? $s
) &
(
  g=/tmp/sol-gemm; rm -rf $g; mkdir -p $g/hopper $g/broken $g/fixit/explanations
  cp $S/hopper/gemm_*.cu $g/hopper/; cp $S/broken/gemm_*.cu $g/broken/; cp $S/fixit/explanations/gemm_* $g/fixit/explanations/
  python3 -c "
import json,sys; c=json.load(open('$S/fixit/catalog.json')); c['repairs']=[r for r in c['repairs'] if 'gemm' in r['broken']]
json.dump(c, open('$g/fixit/catalog.json','w'), indent=1)"
  s=$(now)
  sed "s|fixit demo --out \"\$out\"|fixit demo --solutions $g --out \"\$out\"|" "$tree/tests/fixit/gpu_repair_cycle.sh" >/tmp/cycle.sh
  PTXBENCH_EXE="$P" timeout -k 5 300 sh /tmp/cycle.sh /tmp/fixit-cycle >"$out/H-fixit-cycle.log" 2>&1; log fixit-cycle $? $s
  cp /tmp/fixit-cycle/card.md "$out/H-fixit-card.md" 2>/dev/null
  s=$(now); timeout -k 5 "$(left)" bash "$tree/tests/serve/gpu_episode.sh" "$build" >"$out/H-serve.log" 2>&1; log serve-episode $? $s
) &
(
  s=$(now); OUT="$out/loop" STEPS="env model loop" PTXBENCH="$P" timeout -k 5 "$(left)" \
    bash "$tree/python/scripts/gpu_loop.sh" >"$out/L-loop.log" 2>&1; log loop $? $s
) &
(
  s=$(now); timeout -k 5 150 "$P" eval "$S/hopper/mha_bwd_d128.cu" --task mha_bwd_d128 --arch hopper \
    --tasks-dir "$tree/tasks" --json --sandbox off >"$out/D-bwd-off.jsonl" 2>"$out/D-bwd-off.err"; log bwd-off $? $s
  s=$(now); timeout -k 5 200 "$build/tests/controls/ncu_fallback_eval_test" >"$out/G-ncu-fallback.log" 2>&1; log ncu-fallback $? $s
  s=$(now); timeout -k 5 "$(left)" "$build/tests/eval/gpu_stages/eval_gpu_stages_test" >"$out/G-gpu-stages.log" 2>&1; log gpu-stages $? $s
) &
while [ -n "$(jobs -r)" ]; do sleep 10; archive; done
wait; archive
cat "$out/batch2-summary.txt"
python3 "$tree/benchmarks/device/verdicts.py" "$S" "$out"/E-*.jsonl "$out/D-bwd-off.jsonl"
cat "$out"/E-*.skipped 2>/dev/null
grep -hE '^\[  (PASSED|FAILED)|FAILED' "$out"/G-*.log | head -40
tail -5 "$out/H-fixit-cycle.log"; tail -25 "$out/H-serve.log"; cat "$out/D-diag.txt"
grep -hE '^\[  (PASSED|FAILED)|FAILED' "$out"/F-hostile.log | head; tail -15 "$out/L-loop.log"
