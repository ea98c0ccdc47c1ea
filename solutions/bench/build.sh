#!/usr/bin/env bash
# Builds the harness and every candidate .so into .bench-bin/ (git-ignored) with the compile
# stage's flags, so that a device session only runs them. Variants: VARIANTS="name:-DFLAG ..."
# (e.g. VARIANTS="cluster1:-DGEMM_CLUSTER_M=1 group8:-DGEMM_GROUP_M_BLOCKS=8").
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
bin=.bench-bin
tvm=.deps/python/tvm_ffi
mkdir -p "$bin"
rm -f "$bin"/*.so "$bin"/*.log
flags=(-std=c++17 -O3 -shared -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a -cudart shared
       -lineinfo -Xptxas -v -I"$tvm/include" -L"$tvm/lib" -ltvm_ffi -L/usr/local/cuda/lib64/stubs -lcuda)
build() {  # output source extra-flags...
  local output=$1 source=$2
  shift 2
  nvcc "${flags[@]}" "$@" "$source" -o "$bin/$output.so" > "$bin/$output.log" 2>&1 ||
    { cat "$bin/$output.log"; exit 1; }
}
build gemm_bf16_nt_warp_specialized solutions/hopper/gemm_bf16_nt_warp_specialized.cu
for variant in ${VARIANTS:-}; do
  build "variant_${variant%%:*}" solutions/hopper/gemm_bf16_nt_warp_specialized.cu ${variant#*:}
done
for source in solutions/broken/*.cu; do
  build "broken_$(basename "$source" .cu)" "$source"
done
nvcc -std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -I"$tvm/include" \
  solutions/bench/gemm_harness.cu -o "$bin/gemm_harness" -L"$tvm/lib" -ltvm_ffi -lcublasLt -ldl
mkdir -p .deps-tvm/lib
cp -r "$tvm/include" .deps-tvm/
cp "$tvm/lib/libtvm_ffi.so" .deps-tvm/lib/
grep -H -E "registers|spill" "$bin"/*.log | sed 's/ptxas info *: //'
