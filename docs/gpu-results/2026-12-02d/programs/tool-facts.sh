#!/usr/bin/env bash
# Facts about the GPU machine's tools that the judge depends on, written to $OUT (one device
# call, no ptxbench build needed; .deps/device carried for the TVM-FFI headers):
#   machine.txt                 CPU, memory, file systems, GPU
#   ncu-*.csv, ncu-times.txt     ncu's per-opcode counts of a two-kernel program (the second
#                                kernel waits on an mbarrier: SYNCS), in each instance format
#   compute-sanitizer-help.txt   the racecheck options this version has
#   nvcc-*.txt                   a candidate compile with ptxbench's flags, phase by phase
#                                (`nvcc --time`), in the work folder and on /dev/shm, alone and
#                                two at once
#   process-start.txt            a process's CUDA context, cuBLASLt and cuDNN start-up
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
R="${OUT:-/tmp/tool-facts}"
mkdir -p "$R"
w="$(mktemp -d)"
trap 'rm -rf "$w"' EXIT
export PATH="/usr/local/cuda/bin:$PATH"
ms() { date +%s%3N; }

{ lscpu; echo; free -g; echo; df -h / /tmp /dev/shm; echo; nvidia-smi; } >"$R/machine.txt" 2>&1

compute-sanitizer --version >"$R/compute-sanitizer-help.txt" 2>&1
compute-sanitizer --help >>"$R/compute-sanitizer-help.txt" 2>&1

nvcc -arch=sm_90a -lineinfo -o "$w/two" "$here/two_kernels.cu" >"$R/ncu-build.txt" 2>&1
cuobjdump -sass "$w/two" 2>&1 | grep -E "Function|SYNCS" >"$R/two-kernels-sass.txt"
common=(--clock-control none --csv --page raw --print-units base --print-kernel-base mangled)
: >"$R/ncu-times.txt"
run_ncu() {  # name metrics extra...
  local name="$1" metrics="$2" start
  shift 2
  start=$(ms)
  ncu "${common[@]}" --metrics "$metrics" "$@" "$w/two" >"$R/ncu-$name.csv" 2>&1
  echo "$name rc=$? $(( $(ms) - start )) ms" >>"$R/ncu-times.txt"
}
base=smsp__sass_inst_executed_op_shared_gmma.sum,smsp__sass_inst_executed_op_tma.sum,smsp__sass_inst_executed.sum
run_ncu ops "$base"
run_ncu per-opcode-details "$base,sass__inst_executed_per_opcode" --print-metric-instances details
run_ncu per-opcode-values "$base,sass__inst_executed_per_opcode" --print-metric-instances values
run_ncu per-opcode-none "$base,sass__inst_executed_per_opcode"
run_ncu with-modifier-details "sass__inst_executed_per_opcode_with_modifier_all" --print-metric-instances details
run_ncu thread-with-modifier-details "sass__thread_inst_executed_true_per_opcode_with_modifier_all" --print-metric-instances details
ncu --query-metrics --query-metrics-mode all --chip gh100 2>&1 | grep -i "opcode\|syncs\|barrier" >"$R/ncu-opcode-metrics.txt"

# A candidate compile with ptxbench's flags (compile/compiler.cpp), phase by phase.
tvm="$root/.deps/device/pydeps/tvm_ffi"
src="$root/solutions/hopper/gemm_bf16_nt_warp_specialized.cu"
flags=(-std=c++17 -O3 -shared -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a -cudart shared
       -lineinfo -Xptxas -v "-I$tvm/include" "-L$tvm/lib" -ltvm_ffi -lcuda)
compile() {  # folder name
  local dir="$1" name="$2" start
  mkdir -p "$dir"
  cp "$src" "$dir/candidate.cu"
  start=$(ms)
  (cd "$dir" && nvcc "${flags[@]}" --time "$R/nvcc-$name.csv" -o candidate.so candidate.cu >/dev/null 2>&1)
  echo "$name rc=$? $(( $(ms) - start )) ms" >>"$R/nvcc-walls.txt"
}
: >"$R/nvcc-walls.txt"
compile "$w/c1" work-1
compile "$w/c2" work-2
compile /dev/shm/ptxb-c3 shm-1
compile /dev/shm/ptxb-c4 shm-2
compile "$w/c5" pair-a & compile "$w/c6" pair-b & wait
TMPDIR=/dev/shm compile /dev/shm/ptxb-c7 shm-tmpdir
rm -rf /dev/shm/ptxb-c*
{ command -v gcc; gcc --version | head -1; } >>"$R/nvcc-walls.txt" 2>&1

# Process start-up: PyTorch's cuDNN and cuBLASLt, as scripts/gpu-check.sh puts them first.
torch_libs="$(python3 - <<'PY' 2>/dev/null
import glob, os, torch
site = os.path.dirname(os.path.dirname(torch.__file__))
dirs = {os.path.dirname(p) for n in ("libcudnn.so.9", "libcublasLt.so.*")
        for p in glob.glob(os.path.join(site, "nvidia", "**", n), recursive=True)}
print(":".join(sorted(dirs)))
PY
)"
nvcc -O2 -o "$w/start" "$here/process_start.cu" -lcublasLt -ldl >"$R/process-start.txt" 2>&1
for i in 1 2 3; do
  start=$(ms)
  LD_LIBRARY_PATH="${torch_libs:+$torch_libs:}${LD_LIBRARY_PATH:-}" "$w/start" >>"$R/process-start.txt" 2>&1
  echo "process $i: $(( $(ms) - start )) ms wall" >>"$R/process-start.txt"
done
echo "tool-facts: done" >>"$R/machine.txt"
