#!/usr/bin/env bash
# The one GPU validation script (benchmarks/gpu-check/README.md). Run it from the repository
# root on the GPU machine, with .deps/device carried (scripts/pack-device-deps.sh). It builds the
# tree there once (a warm machine keeps build-device/), records the environment, then runs the
# parts named in PARTS (default: every part, in order) from benchmarks/gpu-check/parts/. Each part
# writes its records under $RESULTS/<part>/ and prints a summary. Everything is archived into
# $OUT after every part, so a call cut at its time limit keeps what finished.
#   PARTS="10-verdicts 20-gpu-tests"   parts to run (names or name prefixes, e.g. "10 20")
#   PART_LIMIT_S=540                   each part's deadline (a part may take less by itself)
#   CALL_LIMIT_S=590                   the whole call's limit (the device tool's): no part runs
#                                      past it, so the archive of what finished is always written
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps="$root/.deps/device"
out_dir="${OUT:-$root/gpu-check-out}"
stamp="$(date -u +%Y-%m-%d)"
call_start=$(date +%s)
results="/tmp/gpu-check/$stamp"
mkdir -p "$results" "$out_dir"
export PYTHONUNBUFFERED=1 CUDA_MODULE_LOADING=LAZY

# --- environment: the carried Debian/PyPI parts (the GPU machine has no network) --------------
mkdir -p "$root/.deps"
[[ -d "$deps/pydeps" ]] && ln -sfn "$deps/pydeps" "$root/.deps/python"
libs="$deps/usr/lib/x86_64-linux-gnu:$root/.deps/python/tvm_ffi/lib"
export LD_LIBRARY_PATH="$libs:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}:$deps/fallback-lib"
export PATH="/usr/local/cuda/bin:$PATH"
# The training packages the machine's Python lacks (trl, datasets: parts 55 and 60).
if compgen -G "$deps/wheels/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/gpu-check-site "$deps"/wheels/*.whl && export PYTHONPATH="/tmp/gpu-check-site${PYTHONPATH:+:$PYTHONPATH}"
fi
# The sandbox (docs/sandbox.md): the carried bwrap, and a toolkit its unprivileged user may read.
export PTXBENCH_BWRAP="$deps/sandbox/bwrap"
chmod -R o+rX "$(readlink -f /usr/local/cuda)" 2>/dev/null || true

archive() { tar -czf "$out_dir/gpu-check-$stamp.tar.gz" -C "$(dirname "$results")" "$stamp"; }
now_ms() { date +%s%3N; }

# --- build: the CLI and the worker; a part builds what else it needs (kept while warm) ----------
BUILD="$root/build-device"
start=$(now_ms)
cmake -S "$root" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPTXBENCH_ENABLE_GPU_TESTS=ON -DCMAKE_PREFIX_PATH="$deps/usr" >"$results/build.log" 2>&1 &&
  timeout "${BUILD_LIMIT_S:-480}" ninja -C "$BUILD" -k 0 -j"$(nproc)" ptxbench ptxbench-worker \
    >>"$results/build.log" 2>&1
build_rc=$?
printf '%-24s rc=%-3s %7.1f s\n' build "$build_rc" "$(( $(now_ms) - start ))e-3" >>"$results/summary.txt"
tail -30 "$results/build.log" | grep -E 'error|FAILED' | head -20
export BUILD TREE="$root" PTXBENCH="$BUILD/src/ptxbench" WORKER="$BUILD/src/ptxbench-worker"

# --- the environment of the record --------------------------------------------------------------
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown) $(git -C "$root" status --porcelain 2>/dev/null | grep -c . ) changed files"
  echo "command: PARTS='${PARTS:-all}' bash scripts/gpu-check.sh"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.limit \
    --format=csv
  nvcc --version | tail -2
  compute-sanitizer --version | tail -1
  ncu --version | tail -1
  python3 -c 'import torch; print("torch", torch.__version__)' 2>&1
  python3 -c 'import trl, datasets; print("trl", trl.__version__, "datasets", datasets.__version__)' 2>&1
  "$WORKER" info 2>&1
} >"$results/env.txt" 2>&1
archive

# --- the parts --------------------------------------------------------------------------------
selected() {  # part-name: is it in PARTS (all when PARTS is unset)?
  [[ -z "${PARTS:-}" ]] && return 0
  local p
  for p in $PARTS; do [[ "$1" == "$p"* ]] && return 0; done
  return 1
}
for script in "$root"/benchmarks/gpu-check/parts/*.sh; do
  name="$(basename "$script" .sh)"
  selected "$name" || continue
  deadline="${PART_LIMIT_S:-540}"
  if [[ -n "${CALL_LIMIT_S:-}" ]]; then  # keep 20 s for the archive
    call_left=$(( CALL_LIMIT_S - ($(date +%s) - call_start) - 20 ))
    (( call_left < deadline )) && deadline=$call_left
    if (( deadline < 30 )); then
      printf '%-24s not run (the call limit)\n' "$name" >>"$results/summary.txt"
      continue
    fi
  fi
  export RESULTS="$results/$name" DEADLINE_S="$deadline"
  mkdir -p "$RESULTS"
  start=$(now_ms)
  timeout -k 10 "$DEADLINE_S" bash "$script" >"$RESULTS/part.log" 2>&1
  rc=$?
  printf '%-24s rc=%-3s %7.1f s\n' "$name" "$rc" "$(( $(now_ms) - start ))e-3" >>"$results/summary.txt"
  echo "=== $name (rc=$rc)"
  tail -25 "$RESULTS/part.log"
  archive
done
echo "=== summary"
cat "$results/summary.txt"
cp "$results/summary.txt" "$out_dir/summary.txt"
exit 0
