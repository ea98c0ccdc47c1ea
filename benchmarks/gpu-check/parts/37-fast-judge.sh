#!/usr/bin/env bash
# The judge at the GPU's pace (docs/gpu-engine.md, "The warm judge"): on one GPU in one lease,
# the fresh judge (--judge fresh, the earlier design) and the warm judge side by side.
#   latency     one expert GEMM alone, three times per judge: p50 wall of `ptxbench eval`
#   gemm        16 distinct expert GEMM copies at --gpu-concurrency 1 and 4, per judge
#   attention   expert attention forward / backward d128 copies with the rl profile (a seed pool
#               of 2, so references recur after two verdicts) at concurrency 4, warm judge
#   mixed       GEMMs, attention forwards and failing candidates together at concurrency 4: the
#               experts' speedups beside those judged alone, every timed window's company
# and, per stream, where the GPU time went (build/benchmarks/throughput records). JUDGES="fresh warm"
# and STREAMS="latency gemm attention mixed" pick parts of it.
set -u
source "$TREE/benchmarks/gpu-check/lib.sh"
judges="${JUDGES:-fresh warm}"
streams="${STREAMS:-latency gemm attention mixed}"
# singles: one attention forward and one backward d128 verdict each, warm, for their parts
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
S="$TREE/solutions"
# The stage parts' printer is not among the targets gpu-check.sh builds.
ninja -C "$BUILD" throughput >"$RESULTS/build-throughput.log" 2>&1 ||
  echo "benchmarks/throughput did not build: no stage parts (build-throughput.log)"
parts_of() {  # NAME WALL_S GPUS: the stage parts and verdicts/GPU-h of $RESULTS/NAME.jsonl
  "$BUILD/benchmarks/throughput" records "$RESULTS/$1.jsonl" --wall-seconds "$2" --gpus 1 \
    >"$RESULTS/$1.parts.md" 2>&1
  { echo "## $1"; cat "$RESULTS/$1.parts.md"; echo; } >>"$RESULTS/parts.md"
}
copies() {  # SOLUTION COUNT NAME
  local i
  mkdir -p "$work/$3"
  for i in $(seq "$2"); do { cat "$1"; echo "// copy $i"; } >"$work/$3/copy-$i.cu"; done
}
stream() {  # NAME CONCURRENCY FILES... -- EVAL ARGS...
  local name=$1 c=$2; shift 2
  local files=() args=()
  while [[ $# -gt 0 && "$1" != -- ]]; do files+=("$1"); shift; done
  shift
  args=("$@")
  if [[ $(left) -lt 60 ]]; then echo "$name not run (part deadline)" | tee -a "$RESULTS/not-judged.txt"; return; fi
  local f task arch s
  f="${files[0]}"; task=$(header_field task "$f"); arch=$(header_field arch "$f")
  s=$(now)
  timeout -k 5 "$(left)" "$PTXBENCH" eval "${files[@]}" --task "$task" --arch "${arch:-hopper}" \
    --tasks-dir "$TREE/tasks" --gpus 0 --gpu-concurrency "$c" --json "${args[@]}" \
    >"$RESULTS/$name.jsonl" 2>"$RESULTS/$name.err"
  local rc=$? wall_ms=$(( $(now) - s ))
  echo "$name $c $wall_ms" >>"$RESULTS/walls.txt"
  log "$name c$c" $rc "$s"
  parts_of "$name" "$(python3 -c "print($wall_ms/1000)")"
}

if [[ " $streams " == *" latency "* ]]; then
  for judge in $judges; do
    for i in 1 2 3; do
      copies "$S/hopper/gemm_bf16_nt_warp_specialized.cu" 1 "latency-$judge-$i"
      stream "latency-$judge-$i" 1 "$work/latency-$judge-$i"/copy-1.cu -- --judge "$judge"
    done
  done
fi
if [[ " $streams " == *" singles "* ]]; then
  copies "$S/hopper/mha_fwd_lse_d128.cu" 1 single-fwd
  copies "$S/hopper/mha_bwd_d128.cu" 1 single-bwd
  stream single-fwd-warm 1 "$work/single-fwd"/copy-1.cu -- --judge warm
  stream single-bwd-warm 1 "$work/single-bwd"/copy-1.cu -- --judge warm
fi
if [[ " $streams " == *" gemm "* ]]; then
  copies "$S/hopper/gemm_bf16_nt_warp_specialized.cu" 16 gemm
  for judge in $judges; do
    for c in 1 4; do
      # New copies per run: nothing is cached between the runs either.
      for f in "$work/gemm"/copy-*.cu; do echo "// $judge $c" >>"$f"; done
      stream "gemm-$judge-c$c" "$c" "$work/gemm"/copy-*.cu -- --judge "$judge"
    done
  done
fi
if [[ " $streams " == *" attention "* ]]; then
  copies "$S/hopper/mha_fwd_lse_d128.cu" 6 attention_fwd
  copies "$S/hopper/mha_bwd_d128.cu" 4 attention_bwd
  stream attention_fwd-warm-rl 4 "$work/attention_fwd"/copy-*.cu -- --profile rl --seed-pool 2 \
    --verdict-cache "$work/verdicts-fwd" --compile-cache "$work/compiles"
  stream attention_bwd-warm-rl 4 "$work/attention_bwd"/copy-*.cu -- --profile rl --seed-pool 2 \
    --verdict-cache "$work/verdicts-bwd" --compile-cache "$work/compiles"
fi
if [[ " $streams " == *" mixed "* ]]; then
  mkdir -p "$work/mixed"
  i=0
  for f in "$S/hopper/gemm_bf16_nt_warp_specialized.cu" "$S/broken/gemm_tail_writes_past_c.cu" \
           "$S/broken/gemm_wrong_after_three_calls.cu" "$S/hopper/gemm_bf16_nt_warp_specialized.cu"; do
    i=$((i + 1)); { cat "$f"; echo "// mixed $i"; } >"$work/mixed/gemm-$i.cu"
  done
  stream mixed-gemm 4 "$work/mixed"/gemm-*.cu -- --judge warm
fi

python3 - "$RESULTS" <<'PY' | tee -a "$RESULTS/summary.txt"
import json, pathlib, statistics, sys
results = pathlib.Path(sys.argv[1])
rows = []
for line in (results / "walls.txt").read_text().splitlines() if (results / "walls.txt").exists() else []:
    name, c, ms = line.split()
    path = results / f"{name}.jsonl"
    recs = [json.loads(l) for l in path.read_text().splitlines() if l.strip()] if path.exists() else []
    wall = int(ms) / 1000
    walls = [r.get("wall_seconds", 0) for r in recs]
    sp = [w["speedup"] for r in recs for w in r.get("workloads", []) if w.get("headline") and w.get("speedup")]
    alone = [w.get("timing_window", {}).get("alone") for r in recs for w in r.get("workloads", []) if w.get("timing_window")]
    verdicts = {}
    for r in recs:
        verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
    judge = sorted({r.get("judge", "") for r in recs})
    rows.append((name, c, len(recs), wall, len(recs) * 3600 / wall if wall else 0,
                 statistics.median(walls) if walls else 0,
                 f"{statistics.median(sp):.3f}" if sp else "-",
                 f"{sum(1 for a in alone if a)}/{len(alone)} alone" + (f", {sum(1 for a in alone if a is None)} unknown" if any(a is None for a in alone) else ""),
                 ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())), "/".join(judge)))
print("| stream | concurrency | verdicts | wall s | verdicts/GPU-h | p50 verdict wall s | speedup p50 | timed windows | verdicts | judge |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    print("| {} | {} | {} | {:.1f} | {:.0f} | {:.2f} | {} | {} | {} | {} |".format(*r))
PY
