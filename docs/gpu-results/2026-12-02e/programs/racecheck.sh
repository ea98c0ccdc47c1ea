#!/usr/bin/env bash
# racecheck on bulk_copy_reads.cu (waiting and not waiting, with and without
# --racecheck-memcpy-async) and on stage_handback.cu (the backward's hand-back of a stage, and
# an arrival before the reads); one log each under $OUT (docs/gpu-results/2026-12-02d.md).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
R="${OUT:-/tmp/racecheck}"
mkdir -p "$R"
w="$(mktemp -d)"
trap 'rm -rf "$w"' EXIT
export PATH="/usr/local/cuda/bin:$PATH"
nvcc -arch=sm_90a -lineinfo -o "$w/bulk" "$here/bulk_copy_reads.cu" >"$R/racecheck-build.txt" 2>&1
nvcc -arch=sm_90a -lineinfo -o "$w/ring" "$here/stage_handback.cu" -lcuda >>"$R/racecheck-build.txt" 2>&1
for mode in wait nowait; do
  for async in yes no; do
    compute-sanitizer --tool racecheck --racecheck-memcpy-async "$async" --print-limit 5 \
      "$w/bulk" "$mode" >"$R/racecheck-$mode-async-$async.txt" 2>&1
    echo "$mode async=$async rc=$? $(grep -E 'RACECHECK SUMMARY' "$R/racecheck-$mode-async-$async.txt")"
  done
done | tee "$R/racecheck-summary.txt"
for mode in handback early producer_fence all_arrive generic generic_early tensor \
  tensor_all_arrive ring2; do
  timeout 60 compute-sanitizer --tool racecheck --print-limit 5 "$w/ring" "$mode" \
    >"$R/racecheck-ring-$mode.txt" 2>&1
  echo "ring $mode rc=$? $(grep -E 'RACECHECK SUMMARY' "$R/racecheck-ring-$mode.txt")"
done | tee -a "$R/racecheck-summary.txt"
