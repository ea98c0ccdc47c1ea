#!/usr/bin/env bash
# The GPU machine's side of docs/gpu-results: run from the repository root there, with
# .deps/device carried (scripts/pack-device-deps.sh, PTXBENCH_PREBUILT set or not). Uses the prebuilt
# executables when they run on this machine, else builds the snapshot here; then runs the GPU
# tests, the baselines against PyTorch on the same shapes, candidates back to back through
# `ptxbench eval` (throughput, repeatability) and the ncu cross-check. One log per step goes to
# a work folder, archived into $OUT/logs.tar.gz after every step (a device call returns at most
# eight files); the summary and the result tables are also copied to $OUT (default ./gpu-check-out).
#   STEPS="env unit gpu-tests baselines eval ncu family verdicts demo" (default: the first six)
#   baselines: ours against PyTorch interleaved in one process
#   family:   the expert GEMM on every gemm task, large-M workloads timed (benchmarks/family_speed.py)
#   verdicts: the executed-instruction proof, the ncu fallback, every control and every solution
#             through `ptxbench eval`, in parallel shards (they assert verdicts; their timings are
#             unused); VERDICTS="proof ncu-fallback controls solutions" picks suites
#   demo:     `ptxbench demo` alone on the GPU (its speedups are recorded)
#   custom:   CUSTOM_CMD (a bash command line; $build, $tree, $worker, $out set), CUSTOM_LIMIT_S
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
results="${OUT:-$root/gpu-check-out}"
out=/tmp/gpu-check
deps="$root/.deps/device"
steps="${STEPS:-env unit gpu-tests baselines eval ncu}"
shard_limit_s="${SHARD_LIMIT_S:-400}"
rm -rf "$out" && mkdir -p "$out" "$results"
archive() { tar -czf "$results/logs.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"; }
export PYTHONUNBUFFERED=1 CUDA_MODULE_LOADING=LAZY

# A prebuilt snapshot (.deps/device/src with its build in src/build, scripts/pack-device-deps.sh)
# runs where it lies: its executables find their configured paths again relative to themselves
# (docs/running.md, "Carrying a build"). Without one the carried working tree is built here.
tree="$root"
[[ -d "$deps/src" ]] && tree="$deps/src"
mkdir -p "$tree/.deps"
ln -sfn "$deps/pydeps" "$tree/.deps/python"

# PyTorch's own cuDNN and cuBLAS first: the baselines then use the very libraries PyTorch uses.
torch_libs="$(python3 - <<'PY' 2>/dev/null
import glob, os, torch
site = os.path.dirname(os.path.dirname(torch.__file__))
dirs = {os.path.dirname(p) for n in ("libcudnn.so.9", "libcublasLt.so.*")
        for p in glob.glob(os.path.join(site, "nvidia", "**", n), recursive=True)}
print(":".join(sorted(dirs)))
PY
)"
libs="$deps/usr/lib/x86_64-linux-gnu:$tree/.deps/python/tvm_ffi/lib"
export LD_LIBRARY_PATH="${torch_libs:+$torch_libs:}$libs:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
# The carried libcurl is Debian's: its dependencies come with it (last, after everything else).
export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$deps/fallback-lib"
export PATH="/usr/local/cuda/bin:$PATH"
# The sandbox (docs/sandbox.md): the carried bwrap, and a toolkit that its unprivileged user
# (uid 65534) may read (this VM's is installed root-only in places; the VM is fresh every call).
export PTXBENCH_BWRAP="$deps/sandbox/bwrap"
chmod -R o+rX "$(readlink -f /usr/local/cuda)" 2>/dev/null || true

now_ms() { date +%s%3N; }
step() {  # name timeout_s command...
  local name="$1" limit="$2" start rc
  shift 2
  start=$(now_ms)
  timeout "$limit" "$@" >"$out/$name.log" 2>&1
  rc=$?
  printf '%-18s rc=%-3s %7.1f s\n' "$name" "$rc" "$(( $(now_ms) - start ))e-3" >>"$out/summary.txt"
  archive
  return $rc
}
wants() { [[ " $steps " == *" $1 "* ]]; }

build="$tree/build"
worker="$build/src/ptxbench-worker"
if ! "$worker" info >"$out/prebuilt-check.log" 2>&1; then
  # The carried executables do not run here: build the same snapshot on this machine.
  echo "prebuilt executables do not run here; building" >>"$out/summary.txt"
  build="$tree/build-device"
  # BUILD_TARGETS overrides the list (the targets the chosen steps need).
  step build "${BUILD_LIMIT_S:-420}" bash -c "cmake -S $tree -B $build -G Ninja \
      -DCMAKE_PREFIX_PATH=$deps/usr >/dev/null && ninja -C $build -k 0 -j\$(nproc) ${BUILD_TARGETS:-ptxbench \
      ptxbench-worker ptxbench_baselines_capi eval_gpu_kernels_test eval_gpu_stages_test \
      eval_worker_test fake_ptxbench_worker controls_eval_test solutions_eval_test \
      eval_proof_gpu_tests ncu_fallback_eval_test}"
  worker="$build/src/ptxbench-worker"
fi

if wants env; then
  {
    date -u +%Y-%m-%dT%H:%M:%SZ
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit \
      --format=csv
    nvcc --version | tail -2
    ncu --version | tail -1
    compute-sanitizer --version | tail -1
    python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    ldd "$worker" | grep -E 'cudnn|cublas|cupti|curl|tvm|fmt|yaml|not found'
    "$worker" info
  } >"$out/env.log" 2>&1
fi

if wants unit; then
  step unit 120 "$build/tests/eval/worker/eval_worker_test"
fi

if wants gpu-tests; then
  step gpu-kernels 150 "$build/tests/eval/gpu_stages/eval_gpu_kernels_test"
  step gpu-stages 240 "$build/tests/eval/gpu_stages/eval_gpu_stages_test"
fi

if wants baselines; then
  # Both sides in one process, call by call, alternating order, on the same tensors and stream.
  step baselines-interleaved 540 python3 "$root/benchmarks/interleaved_baselines.py" \
    --library "$build/benchmarks/libptxbench_baselines_capi.so" \
    --markdown "$out/baselines-interleaved.md"
fi

if wants eval || wants ncu; then
  candidates=/tmp/ptxb-candidates
  rm -rf "$candidates" /tmp/ptxb-artifacts && mkdir -p "$candidates"
  for i in 1 2 3 4 5; do
    cp $tree/solutions/hopper/gemm_bf16_nt_warp_specialized.cu "$candidates/expert_$i.cu"
  done
  for broken in gemm_wgmma_path_never_taken gemm_producer_phase_deadlock; do
    cp "$tree/solutions/broken/$broken.cu" "$candidates/$broken.cu"
  done
  # A slow but correct FFMA kernel: its verdict must stay bounded (sanitizer included).
  cp "$tree/tests/eval/gpu_stages/data/gemm_naive.cu" "$candidates/slow_ffma.cu"
  start=$(now_ms)
  # One verdict per line as it is known; the summary gives latency per stage and verdicts per
  # GPU-hour against the goals.
  step eval 300 "$build/src/ptxbench" eval $candidates/*.cu --task gemm_n7168_k5120 \
      --arch hopper --tasks-dir "$tree/tasks" --keep-artifacts /tmp/ptxb-artifacts \
      --out "$out/evals.json"
  total_s="$(( $(now_ms) - start ))e-3"
  python3 "$root/benchmarks/summarize_evaluations.py" "$out/evals.json" "$total_s" \
    >"$out/evaluations.md" 2>&1
fi

if wants ncu; then
  step ncu 90 python3 "$root/benchmarks/ncu_agreement.py" "$out/evals.json" /tmp/ptxb-artifacts \
    $tree/tasks/gemm/gemm_n7168_k5120.json "$worker" expert_1.cu warp_specialized "$out"
fi

if wants family; then
  # The expert GEMM over the whole gemm family, large-M workloads timed, in two invocations so
  # that a time limit loses at most half.
  family_part() {  # name task-glob
    step "family-$1" 280 bash -c "'$build/src/ptxbench' eval \
        '$tree/solutions/hopper/gemm_bf16_nt_warp_specialized.cu' --task '$2' --arch hopper \
        --time-workloads M8192,M8828 --json --tasks-dir '$tree/tasks' >'$out/family-$1.json'"
  }
  family_part a 'gemm_n1*,gemm_n2*,gemm_n3*,gemm_n4*'
  family_part b 'gemm_n5*,gemm_n6*,gemm_n7*'
  python3 "$root/benchmarks/family_speed.py" "$out/family-a.json" "$out/family-b.json" \
    --workloads M8192,M8828 >"$out/family.md" 2>&1
fi

if wants verdicts; then
  start=$(now_ms)
  shard() {  # name executable total index
    GTEST_TOTAL_SHARDS="$3" GTEST_SHARD_INDEX="$4" timeout "$shard_limit_s" "$2" >"$out/$1.log" 2>&1
    printf '%-18s rc=%-3s\n' "$1" "$?" >>"$out/summary.txt"
  }
  suites=" ${VERDICTS:-proof ncu-fallback controls solutions} "
  [[ "$suites" == *" proof "* ]] && shard proof "$build/tests/eval/proof/eval_proof_gpu_tests" 1 0 &
  [[ "$suites" == *" ncu-fallback "* ]] &&
    shard ncu-fallback "$build/tests/controls/ncu_fallback_eval_test" 1 0 &
  if [[ "$suites" == *" controls "* ]]; then
    for i in 0 1 2; do shard "controls-$i" "$build/tests/controls/controls_eval_test" 3 "$i" & done
  fi
  if [[ "$suites" == *" solutions "* ]]; then
    for i in 0 1; do shard "solutions-$i" "$build/tests/solutions/solutions_eval_test" 2 "$i" & done
  fi
  wait
  printf '%-18s %7.1f s\n' verdicts "$(( $(now_ms) - start ))e-3" >>"$out/summary.txt"
  archive
fi

if wants custom; then
  # CUSTOM_CMD runs with this script's environment ($build, $tree, $worker, $out are set).
  step custom "${CUSTOM_LIMIT_S:-300}" env build="$build" tree="$tree" worker="$worker" out="$out" \
    bash -c "${CUSTOM_CMD:-true}"
fi

if wants demo; then
  step demo "${DEMO_LIMIT_S:-300}" "$build/src/ptxbench" demo --out "$out/demo-run"
fi

archive
for f in summary.txt baselines.md baselines-interleaved.md evaluations.md family.md ncu.log evals.json; do
  [[ -f "$out/$f" ]] && cp "$out/$f" "$results/"
done
echo "--- summary" && cat "$out/summary.txt"
for f in baselines.md baselines-interleaved.md evaluations.md family.md ncu.log; do
  [[ -f "$out/$f" ]] && { echo "--- $f"; cat "$out/$f"; }
done
[[ -f "$out/demo.log" ]] && { echo "--- demo"; tail -40 "$out/demo.log"; }
for f in gpu-kernels gpu-stages unit proof ncu-fallback controls-0 controls-1 controls-2 solutions-0 solutions-1; do
  [[ -f "$out/$f.log" ]] && { echo "--- $f"; grep -E '^\[  (PASSED|FAILED)|FAILED|SKIPPED|Failure|got ' "$out/$f.log" | head -30; }
done
exit 0
