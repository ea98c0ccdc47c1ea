#!/usr/bin/env bash
# racecheck on bulk_copy_reads.cu, waiting and not waiting, with and without
# --racecheck-memcpy-async; one log each under $OUT (docs/gpu-results/2026-12-02d.md).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
R="${OUT:-/tmp/racecheck}"
mkdir -p "$R"
w="$(mktemp -d)"
trap 'rm -rf "$w"' EXIT
export PATH="/usr/local/cuda/bin:$PATH"
nvcc -arch=sm_90a -lineinfo -o "$w/bulk" "$here/bulk_copy_reads.cu" >"$R/racecheck-build.txt" 2>&1
for mode in wait nowait; do
  for async in yes no; do
    compute-sanitizer --tool racecheck --racecheck-memcpy-async "$async" --print-limit 5 \
      "$w/bulk" "$mode" >"$R/racecheck-$mode-async-$async.txt" 2>&1
    echo "$mode async=$async rc=$? $(grep -E 'RACECHECK SUMMARY' "$R/racecheck-$mode-async-$async.txt")"
  done
done | tee "$R/racecheck-summary.txt"
