#!/usr/bin/env bash
# The eight mha_fwd_lse_d{64,96,128,256}[_causal] solutions are one kernel: mha_fwd_lse_d128.cu
# is the source, and each other file is it with its own header line and its own kTaskHeadDim /
# kTaskCausal lines. Run after editing mha_fwd_lse_d128.cu; tests/solutions fails on a file that
# differs from the source anywhere else.
set -euo pipefail
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_file="$dir/mha_fwd_lse_d128.cu"
for head_dim in 64 96 128 256; do
  for causal in false true; do
    task="mha_fwd_lse_d${head_dim}"
    [[ "$causal" == true ]] && task="${task}_causal"
    target="$dir/$task.cu"
    [[ "$target" == "$source_file" ]] && continue
    sed -e "1s/task=mha_fwd_lse_d128 /task=$task /" \
        -e "s/^constexpr int kTaskHeadDim = 128;$/constexpr int kTaskHeadDim = $head_dim;/" \
        -e "s/^constexpr bool kTaskCausal = false;$/constexpr bool kTaskCausal = $causal;/" \
        "$source_file" > "$target.tmp"
    mv "$target.tmp" "$target"
  done
done
