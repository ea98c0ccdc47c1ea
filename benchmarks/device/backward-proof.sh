#!/bin/bash
# Device call: every family of a multi-kernel candidate proven through ncu's per-opcode counts.
# First the compile of the expert GEMM bare and through `ptxbench eval --no-gpu` (strict, off)
# and its whole verdict (latency), then the two-kernel control, the d128 backward and its causal
# twin alone (their speed against cuDNN), then the other backward tasks and the causal d256
# forward in two streams (verdicts; timings under load), then the ncu GPU test.
set -u
BATCH=batch-bwd DEFAULT_DEADLINE_S=540
source "$(dirname "${BASH_SOURCE[0]}")/clock.sh"
S=$tree/solutions
G=$S/hopper/gemm_bf16_nt_warp_specialized.cu
tvm=$tree/.deps/python/tvm_ffi
bare=$(mktemp -d)
cp "$G" "$bare/candidate.cu"
for i in 1 2; do
  s=$(now)
  (cd "$bare" && nvcc -std=c++17 -O3 -shared -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a \
    -cudart shared -lineinfo -Xptxas -v "-I$tvm/include" "-L$tvm/lib" -ltvm_ffi -lcuda \
    -o candidate.so candidate.cu >/dev/null 2>&1)
  log "nvcc-bare-$i" $? "$s"
done
rm -rf "$bare"
ev gemm-nogpu-strict 60 "$G" gemm_n7168_k5120 --no-gpu
ev gemm-nogpu-off 60 "$G" gemm_n7168_k5120 --no-gpu --sandbox off
ev gemm-cold 90 "$G" gemm_n7168_k5120
ev gemm-warm 90 "$G" gemm_n7168_k5120
ev two-kernels-strict 90 "$tree/tests/controls/data/two_kernels_ncu.cu" gemm_n7168_k5120
ev bwd-d128 180 "$S/hopper/mha_bwd_d128.cu" mha_bwd_d128
ev bwd-d128-causal 180 "$S/hopper/mha_bwd_d128_causal.cu" mha_bwd_d128_causal
{ ev bwd-d64 150 "$S/hopper/mha_bwd_d64.cu" mha_bwd_d64
  ev bwd-d96 150 "$S/hopper/mha_bwd_d96.cu" mha_bwd_d96; } &
{ ev bwd-d64-causal 150 "$S/hopper/mha_bwd_d64_causal.cu" mha_bwd_d64_causal
  ev bwd-d96-causal 150 "$S/hopper/mha_bwd_d96_causal.cu" mha_bwd_d96_causal
  ev fwd-d256-causal 120 "$S/hopper/mha_fwd_lse_d256_causal.cu" mha_fwd_lse_d256_causal; } &
wait
s=$(now); timeout -k 5 "$(left)" "$build/tests/controls/ncu_fallback_eval_test" >"$out/ncu-test.log" 2>&1
log ncu-test $? "$s"; archive
cat "$out/$BATCH-summary.txt"
python3 "$tree/benchmarks/device/verdicts.py" "$S" "$out"/*.jsonl
grep -hE '^\[ +(OK|PASSED|FAILED) |Failure|Expected|Which is' "$out/ncu-test.log" | head -30
