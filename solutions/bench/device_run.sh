#!/usr/bin/env bash
# One device session for the expert GEMM: checks and times prebuilt candidates against cuBLASLt.
# Expects (carried, git-ignored): .bench-bin/ with gemm_harness and candidate .so files built by
# solutions/bench/build.sh, and .deps-tvm/ with TVM-FFI's include/ and lib/. Logs go to $OUT.
#   bash solutions/bench/device_run.sh <step> ...   steps: info family core variants broken sanitize
set -uo pipefail
bin=.bench-bin
out=${OUT:-/tmp/out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/.deps-tvm/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
harness() { "$bin/gemm_harness" "$@"; }
core_ms=8192,8828

for step in "$@"; do
  case "$step" in
    info)
      nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu \
        --format=csv | tee -a "$out/family.txt"
      ldd "$bin/gemm_harness" | grep -E "not found|cublasLt|tvm_ffi" ;;
    family)  # the expert kernel on every shape and M, timed
      harness "expert=$bin/gemm_bf16_nt_warp_specialized.so" 2>&1 | tee "$out/family.txt" ;;
    core)  # the headline workload, more samples, expert and every variant
      for v in "$bin/gemm_bf16_nt_warp_specialized.so" "$bin"/variant_*.so; do
        [ -e "$v" ] || continue
        harness --shapes 7168:5120 --ms 8192 --samples 60 "$(basename "$v" .so)=$v" 2>&1 | tee -a "$out/core.txt"
      done ;;
    variants)  # tuning variants on the large-M workloads only
      for v in "$bin"/variant_*.so; do
        [ -e "$v" ] || continue
        harness --ms "$core_ms" "$(basename "$v" .so)=$v" 2>&1 | tee -a "$out/variants.txt"
      done ;;
    broken)  # negative controls: check only, a few shapes; the deadlock one under a deadline
      for v in "$bin"/broken_*.so; do
        name=$(basename "$v" .so)
        timeout 15 "$bin/gemm_harness" --check-only --shapes 7168:5120,2048:4096 \
          --ms 70,232,8192,8828 "$name=$v" > /tmp/broken_log.txt 2>&1
        echo "$name: exit $? | $(grep -E 'failed the check|WRONG|error' /tmp/broken_log.txt | head -2 | tr '\n' ' ')"
        cat /tmp/broken_log.txt >> "$out/broken_details.txt"
      done 2>&1 | tee "$out/broken.txt" ;;
    sanitize)  # memcheck on small-M workloads: the expert kernel clean, the tail bug caught
      for v in "$bin/gemm_bf16_nt_warp_specialized.so" "$bin/broken_gemm_tail_writes_past_c.so"; do
        name=$(basename "$v" .so)
        # --padding: a gap after every allocation, so that a write just past C cannot land
        # silently inside the next buffer (without it the tail bug ran clean here).
        timeout 120 compute-sanitizer --tool memcheck --padding 1048576 --print-limit 3 \
          "$bin/gemm_harness" --check-only --shapes 2048:4096 --ms 70,232 "$name=$v" \
          > /tmp/sanitize_log.txt 2>&1
        echo "$name: exit $? | $(grep -E 'ERROR SUMMARY|Invalid' /tmp/sanitize_log.txt | head -2 | tr '\n' ' ')"
        cat /tmp/sanitize_log.txt >> "$out/sanitize_details.txt"
      done 2>&1 | tee "$out/sanitize.txt" ;;
    *) echo "unknown step $step" ;;
  esac
done
