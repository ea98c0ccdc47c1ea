#!/usr/bin/env bash
# Where a candidate's compile goes on this machine (issue: compile of the expert GEMM): nvcc's
# phases for the expert GEMM (benchmarks/nvcc_phases.sh: the baseline command and what its
# #include lines alone cost), then the compile stage of `ptxbench eval --no-gpu` (the nvcc in the
# strict sandbox, static checks after it) five times.
set -u
source "$TREE/benchmarks/gpu-check/lib.sh"
s=$(now)
VARIANTS="includes_only cuda_includes_only" TVM_FFI_DIR="$TREE/.deps/python/tvm_ffi" \
  timeout -k 5 "$(left)" bash "$TREE/benchmarks/nvcc_phases.sh" \
  "$TREE/solutions/hopper/gemm_bf16_nt_warp_specialized.cu" 5 >"$RESULTS/nvcc-phases.txt" 2>&1
log "nvcc phases (expert GEMM x5)" $? "$s"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for i in 1 2 3 4 5; do
  { cat "$TREE/solutions/hopper/gemm_bf16_nt_warp_specialized.cu"; echo "// compile $i"; } >"$work/c$i.cu"
done
s=$(now)
timeout -k 5 "$(left)" "$PTXBENCH" eval "$work"/c*.cu --task gemm_n7168_k5120 --arch hopper --no-gpu \
  --parallel 1 --tasks-dir "$TREE/tasks" --json >"$RESULTS/no-gpu.jsonl" 2>"$RESULTS/no-gpu.err"
log "eval --no-gpu x5 (one at a time)" $? "$s"
python3 - "$RESULTS" <<'PY' | tee -a "$RESULTS/summary.txt"
import json, pathlib, statistics, sys
r = pathlib.Path(sys.argv[1])
recs = [json.loads(l) for l in (r / "no-gpu.jsonl").read_text().splitlines() if l.strip()]
comp = [st["seconds"] for x in recs for st in x["stages"] if st["stage"] == "compile"]
stat = [st["seconds"] for x in recs for st in x["stages"] if st["stage"] == "static_sass"]
nvcc = [x["compile"]["seconds"] for x in recs]
print(f"compile stage p50 {statistics.median(comp):.2f} s (nvcc {statistics.median(nvcc):.2f} s), static_sass p50 {statistics.median(stat):.2f} s over {len(recs)} compiles")
PY
cat "$RESULTS/nvcc-phases.txt"
