#!/usr/bin/env bash
# Where nvcc's time goes when it compiles one candidate, and what the options that leave the
# candidate's code, its ABI and its SASS unchanged would save (issue 27 item 3). CPU only.
#   benchmarks/nvcc_phases.sh [CANDIDATE.cu] [REPEATS]
# Default candidate: the Hopper GEMM expert. VARIANTS="a b" runs only those variants. Each variant compiles REPEATS times (default 3);
# the table gives the median wall seconds and, from `nvcc -time`, the median of each phase.
# Every variant's SASS (cuobjdump -sass) is compared with the baseline's: "same" or "DIFFERS".
# The baseline command mirrors compile::nvcc_command (src/ptxbench/compile/compiler.cpp).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
candidate="${1:-$here/solutions/hopper/gemm_bf16_nt_warp_specialized.cu}"
repeats="${2:-3}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
cuobjdump="${CUOBJDUMP:-$(command -v cuobjdump || true)}"
for d in "$here/.deps/python/nvidia/cu13/bin" "$(dirname "$nvcc")"; do
  [[ -z "$cuobjdump" && -x "$d/cuobjdump" ]] && cuobjdump="$d/cuobjdump"
done
[[ -n "$cuobjdump" ]] || { echo "nvcc_phases: cuobjdump not found (set CUOBJDUMP)" >&2; exit 2; }
export PATH="$(dirname "$cuobjdump"):$PATH"  # cuobjdump -sass runs nvdisasm
tvm="${TVM_FFI_DIR:-}"
if [[ -z "$tvm" ]]; then
  for d in "$here/.deps/python/tvm_ffi" "$here/.deps/device/pydeps/tvm_ffi"; do
    [[ -f "$d/include/tvm/ffi/function.h" ]] && tvm="$d" && break
  done
fi
[[ -n "$tvm" ]] || { echo "nvcc_phases: TVM-FFI not found (set TVM_FFI_DIR)" >&2; exit 2; }
[[ -f "$candidate" ]] || { echo "nvcc_phases: $candidate: no such file" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$candidate" "$work/candidate.cu"
cd "$work"
grep '^[[:space:]]*#[[:space:]]*include' candidate.cu >includes_only.cu
grep -v 'tvm/' includes_only.cu >cuda_includes_only.cu

base=(-std=c++17 -O3 -shared -Xcompiler -fPIC -gencode arch=compute_90a,code=sm_90a
      -cudart shared -lineinfo -Xptxas -v -I"$tvm/include" -L"$tvm/lib"
      -Xlinker "-rpath,$tvm/lib" -ltvm_ffi -lcuda)

# name | extra nvcc arguments (a variant of the baseline's command line)
variants=(
  "baseline|"
  "threads_2|--threads 2"
  "split_compile_2|--split-compile 2"
  "host_O1|-Xcompiler -O1"
  "host_O0|-Xcompiler -O0"
  "host_clang|-ccbin clang++"
  "host_pipe|-Xcompiler -pipe"
  # Not an option, a measure: what the candidate's #include lines alone cost (TVM-FFI, CUDA).
  "includes_only|"
  # ... and the same without the TVM-FFI headers (the CUDA and standard headers only).
  "cuda_includes_only|"
)

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "-"; else if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }

printf "candidate: %s\nnvcc: %s\nrepeats: %s\n\n" "$candidate" "$("$nvcc" --version | grep release)" "$repeats"
printf "%-16s %7s %8s %8s %8s %8s %8s %8s %8s  %s\n" variant wall_s preproc cudafe++ cicc ptxas fatbin host_cc link sass
for entry in "${variants[@]}"; do
  name="${entry%%|*}"; extra="${entry#*|}"
  # VARIANTS="baseline includes_only": only those (the baseline always runs: it is the reference).
  if [[ -n "${VARIANTS:-}" && $name != baseline && " $VARIANTS " != *" $name "* ]]; then continue; fi
  rm -f times.csv walls.txt
  ok=1
  for ((r = 0; r < repeats; r++)); do
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    source_file=candidate.cu
    [[ $name == includes_only || $name == cuda_includes_only ]] && source_file=$name.cu
    if ! "$nvcc" "${base[@]}" $extra -time times.csv -o "$name.so" "$source_file" >"$name.log" 2>&1; then
      ok=0; break
    fi
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }' >>walls.txt  # no bc on the GPU machine
  done
  if [[ $ok == 0 ]]; then printf "%-16s  failed: %s\n" "$name" "$(grep -m1 -i error "$name.log" || tail -1 "$name.log")"; continue; fi
  if [[ $name == *includes_only ]]; then same="(no kernels)"; else
  "$cuobjdump" -sass "$name.so" >"$name.sass"
  [[ $name == baseline ]] && cp times.csv baseline_times.csv
  if [[ $name == baseline ]]; then same="(reference)"; elif cmp -s baseline.sass "$name.sass"; then same=same; else same=DIFFERS; fi
  fi
  # nvcc -time rows: file, phase, inputs, output, arch, tool, milliseconds, unit; mean per compile.
  phase() { awk -F' , ' -v p="$1" -v n="$repeats" 'NR > 1 && $2 ~ p {s += $7} END {printf "%.2f", s / 1000 / n}' times.csv; }
  printf "%-16s %7.2f %8s %8s %8s %8s %8s %8s %8s  %s\n" "$name" "$(median <walls.txt)" \
    "$(phase 'preprocessing')" "$(phase 'cudafe')" "$(phase '^cicc')" "$(phase '^ptxas')" \
    "$(phase '^fatbinary')" "$(phase '\\(compiling\\)')" "$(phase 'nvlink|linking')" "$same"
done
echo
echo "wall_s: median seconds of the whole nvcc; phase columns: mean seconds per compile from nvcc -time"
echo "(host_cc: the host compiler's compile steps, the device-link stub included; link: nvlink and"
echo "the final link). sass: cuobjdump -sass of the shared object against the baseline's."
echo
echo "The baseline's nvcc -time table (last repeat):"
awk -F' , ' 'NR == 1 || 1' baseline_times.csv 2>/dev/null | tail -n 20 || true
