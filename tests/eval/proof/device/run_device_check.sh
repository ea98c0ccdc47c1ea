#!/usr/bin/env bash
# Device check of the CUPTI SASS-metrics session and of compute-sanitizer's output, without the
# rest of ptxbench. Builds the check programs (or takes them prebuilt from $1), runs every
# scenario, and writes one log per step plus a summary into $2 (default ./device-check).
#   run_device_check.sh [prebuilt-dir] [out-dir]
# PART=sass runs only the SASS-metrics steps (and records compute-sanitizer --help).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
bin="${1:-}"
out="${2:-$PWD/device-check}"
mkdir -p "$out"
cuda="${CUDA_HOME:-/usr/local/cuda}"
export PATH="$cuda/bin:$PATH"
cupti_lib="$(dirname "$(find "$cuda/" "$cuda/extras/CUPTI/" -name 'libcupti.so*' 2>/dev/null | head -1)")"
export LD_LIBRARY_PATH="$cupti_lib:$cuda/lib64:${LD_LIBRARY_PATH:-}"

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -1
  compute-sanitizer --version | tail -1
  ncu --version | tail -1
  echo "cupti: $cupti_lib"
} >"$out/env.txt" 2>&1

build() {
  local flags=(-std=c++20 -O2 -gencode=arch=compute_90a,code=sm_90a -I"$root/src" -I"$here"
               -I"$cuda/extras/CUPTI/include" -L"$cupti_lib")
  nvcc "${flags[@]}" "$here/sass_metrics_check.cu" "$root/src/ptxbench/eval/proof/gpu/sass_metrics.cpp" \
    -o "$bin/sass_metrics_check" -lcuda -lcupti -ldl &&
  nvcc "${flags[@]}" -shared -Xcompiler -fPIC -cudart shared "$here/dso_kernel.cu" \
    -o "$bin/libdso_kernel.so" &&
  nvcc "${flags[@]}" "$here/sanitizer_plants.cu" -o "$bin/sanitizer_plants" -lcuda &&
  nvcc "${flags[@]}" "$here/sass_metrics_matrix.cu" -o "$bin/sass_metrics_matrix" -lcuda -lcupti
}
if [[ -z "$bin" ]] || ! "$bin/sanitizer_plants" clean >/dev/null 2>&1; then
  echo "building on this machine" >>"$out/env.txt"
  bin="$(mktemp -d)"
  build >"$out/build.log" 2>&1 || { echo "build failed"; cat "$out/build.log"; exit 1; }
  (cd "$bin" && cuobjdump -xelf all sass_metrics_check && cuobjdump -xelf all libdso_kernel.so) >/dev/null
fi
cubins=("$bin"/*.cubin)

run() {  # name, command...
  local name="$1"; shift
  local start end rc
  start=$(date +%s%N)
  "$@" >"$out/$name.log" 2>&1
  rc=$?
  end=$(date +%s%N)
  printf '%-28s rc=%-3s %6d ms\n' "$name" "$rc" $(((end - start) / 1000000)) >>"$out/summary.txt"
}

# Which CUPTI wiring reports records (sass_metrics_matrix.cu): one process per variant.
matrix="$bin/sass_metrics_matrix"
variant=0
for args in "subscribe=none metrics=1" "subscribe=none" "subscribe=empty" \
    "subscribe=resource crc_in_callback=0" "subscribe=resource" \
    "subscribe=launch crc_in_callback=0" "subscribe=launch crc_in_callback=0 order=config-first" \
    "subscribe=driver" "subscribe=launch crc_in_callback=0 order=config-first enable=callback" \
    "subscribe=resource crc_in_callback=0 context=created" \
    "subscribe=none metrics=1 context=created init_first=1" \
    "subscribe=empty context=created init_first=1" \
    "subscribe=launch crc_in_callback=0 order=config-first warmup=1" \
    "subscribe=launch crc_in_callback=0 order=config-first lazy=0"; do
  variant=$((variant + 1))
  # shellcheck disable=SC2086
  run "matrix_$(printf %02d $variant)" "$matrix" $args
done
grep -H "^enabled\|^FAIL" "$out"/matrix_*.log >"$out/matrix_summary.txt"

check="$bin/sass_metrics_check"
run sass_wgmma       "$check" wgmma "${cubins[@]}"
run sass_ffma        "$check" ffma "${cubins[@]}"
run sass_untaken     "$check" untaken "${cubins[@]}"
run sass_single      "$check" single "${cubins[@]}"
run sass_seq         "$check" seq "${cubins[@]}"
export SASS_CHECK_DSO="$bin/libdso_kernel.so"
run sass_dso         "$check" dso "${cubins[@]}"

ncu_metrics=smsp__sass_inst_executed_op_shared_gmma.sum,smsp__sass_inst_executed_op_tma.sum,smsp__sass_inst_executed.sum
compute-sanitizer --help >"$out/sanitizer_help.txt" 2>&1
if [[ "${PART:-all}" == sass ]]; then
  cat "$out/summary.txt"
  exit 0
fi
run ncu_metrics ncu --clock-control none --csv --metrics "$ncu_metrics" "$check" plain
run ncu_source_collect ncu --clock-control none --section SourceCounters -f -o "$out/source" "$check" plain
run ncu_source_print ncu -i "$out/source.ncu-rep" --page source --csv --print-source sass
rm -f "$out/source.ncu-rep"

plants="$bin/sanitizer_plants"
for mode in clean oob_write oob_read tma_wgmma; do
  run "memcheck_$mode" compute-sanitizer --tool memcheck --error-exitcode 86 "$plants" "$mode"
done
run memcheck_oob_write_plain compute-sanitizer --tool memcheck "$plants" oob_write
for mode in clean shared_race tma_wgmma; do
  run "racecheck_$mode" compute-sanitizer --tool racecheck --error-exitcode 86 "$plants" "$mode"
done
run racecheck_shared_race_hazard compute-sanitizer --tool racecheck --racecheck-report hazard \
  --error-exitcode 86 "$plants" shared_race
cat "$out/summary.txt"
