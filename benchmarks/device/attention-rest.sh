#!/bin/bash
# Device call: what the backward-proof batch left (the causal d64 and the d96 backward, the causal
# d256 forward, each alone on the GPU; the ncu GPU test), after a check of what slows nvcc in the
# batches' environment: one candidate compile bare with the environment as scripts/gpu-check.sh
# sets it, without the carried fallback libraries, and without LD_LIBRARY_PATH at all.
set -u
BATCH=batch-rest DEFAULT_DEADLINE_S=420
source "$(dirname "${BASH_SOURCE[0]}")/clock.sh"
S=$tree/solutions
tvm=$tree/.deps/python/tvm_ffi
bare=$(mktemp -d)
cp "$S/hopper/gemm_bf16_nt_warp_specialized.cu" "$bare/candidate.cu"
compile() {  # name env-assignments...
  local name=$1; shift
  local s; s=$(now)
  (cd "$bare" && env "$@" nvcc -std=c++17 -O3 -shared -Xcompiler -fPIC \
    -gencode=arch=compute_90a,code=sm_90a -cudart shared -lineinfo -Xptxas -v \
    "-I$tvm/include" "-L$tvm/lib" -ltvm_ffi -lcuda -o candidate.so candidate.cu >/dev/null 2>&1)
  log "$name" $? "$s"
}
no_fallback=$(echo "$LD_LIBRARY_PATH" | tr ':' '\n' | grep -v fallback-lib | paste -sd:)
for i in 1 2; do
  compile "nvcc-batch-env-$i" "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  compile "nvcc-no-fallback-$i" "LD_LIBRARY_PATH=$no_fallback"
  compile "nvcc-no-ld-path-$i" -u LD_LIBRARY_PATH
done
rm -rf "$bare"
ev bwd-d64-causal 120 "$S/hopper/mha_bwd_d64_causal.cu" mha_bwd_d64_causal
ev bwd-d96 140 "$S/hopper/mha_bwd_d96.cu" mha_bwd_d96
ev fwd-d256-causal 100 "$S/hopper/mha_fwd_lse_d256_causal.cu" mha_fwd_lse_d256_causal
s=$(now); timeout -k 5 "$(left)" "$build/tests/controls/ncu_fallback_eval_test" >"$out/ncu-test.log" 2>&1
log ncu-test $? "$s"; archive
cat "$out/$BATCH-summary.txt"
python3 "$tree/benchmarks/device/verdicts.py" "$S" "$out"/*.jsonl
grep -hE '^\[ +(OK|PASSED|FAILED) |Failure|Expected|Which is' "$out/ncu-test.log" | head -30
