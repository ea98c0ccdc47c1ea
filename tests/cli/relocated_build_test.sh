#!/usr/bin/env bash
# A built ptxbench copied to another folder runs there as is, with nothing of the original
# reachable: the source and build trees are hidden (bubblewrap mounts an empty folder over each)
# and no variable points anywhere. The copy holds the executable, tasks/, context/ and the PyPI
# parts candidate compiles use, in the layout of a source tree (docs/running.md, "Carrying a
# build"), in a folder whose name has a space.
# A second copy without tasks/ must fail: the check that the original is out of reach.
# With the worker given too, it goes to its place in the copy's build tree and must find
# libtvm_ffi.so there through its run path.
#   relocated_build_test.sh PTXBENCH_EXE SOURCE_DIR BINARY_DIR [PTXBENCH_WORKER_EXE]
set -euo pipefail
exe="$1" source_dir="$2" binary_dir="$3" worker="${4:-}"
command -v bwrap >/dev/null || { echo "SKIP: no bwrap to hide the original tree"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
copy="$work/carried tree"  # a space in the path, too

mkdir -p "$copy/any/depth/bin" "$copy/.deps/python/nvidia/cu13" "$work/bare/bin"
cp "$exe" "$copy/any/depth/bin/ptxbench"
cp "$exe" "$work/bare/bin/ptxbench"
cp -r "$source_dir/tasks" "$copy/tasks"
cp -r "$source_dir/context" "$copy/context"
cp -rL "$source_dir/.deps/python/tvm_ffi" "$copy/.deps/python/tvm_ffi"
wheel_tools="$source_dir/.deps/python/nvidia/cu13/bin"  # else the toolkit's cuobjdump is used
[[ -d "$wheel_tools" ]] && cp -rL "$wheel_tools" "$copy/.deps/python/nvidia/cu13/bin"
cp "$source_dir/tests/compile/data/hopper_wgmma_tma.cu" "$work/candidate.cu"

hidden=(--tmpfs "$source_dir")
case "$binary_dir/" in "$source_dir"/*) ;; *) hidden+=(--tmpfs "$binary_dir") ;; esac
isolated() {  # command...: run with the original trees hidden and no ptxbench variables
  env -u PTXBENCH_HOME -u PTXBENCH_WORKER -u PTXBENCH_CACHE_DIR \
    bwrap --dev-bind / / "${hidden[@]}" --chdir "$work" "$@"
}
fail() { echo "FAIL: $*"; exit 1; }

isolated test -e "$source_dir/tasks" && fail "the original tree is still visible"
if isolated "$work/bare/bin/ptxbench" tasks >"$work/bare.out" 2>&1; then
  cat "$work/bare.out"
  fail "a copy without tasks/ listed tasks: the original tree was reachable"
fi

isolated "$copy/any/depth/bin/ptxbench" tasks >"$work/tasks.out" 2>&1 ||
  { cat "$work/tasks.out"; fail "ptxbench tasks failed in the copy"; }
grep -q "gemm_n7168_k5120" "$work/tasks.out" || { cat "$work/tasks.out"; fail "no tasks listed"; }

# The prompt names the harness's folders by placeholder, wherever the tree lies.
isolated "$copy/any/depth/bin/ptxbench" prompt gemm_n7168_k5120 --arch hopper >"$work/prompt.out" \
  2>&1 || { cat "$work/prompt.out"; fail "ptxbench prompt failed in the copy"; }
grep -q "<tvm-ffi>/include" "$work/prompt.out" || fail "the prompt lacks the compile command"
if grep -q -- "$work" "$work/prompt.out"; then fail "the prompt names the copy's folder"; fi

set +e
isolated "$copy/any/depth/bin/ptxbench" eval "$work/candidate.cu" --task gemm_n7168_k5120 \
  --arch hopper --no-gpu --json --sandbox off >"$work/eval.out" 2>"$work/eval.err"
set -e
cat "$work/eval.out"
grep -q '"verdict":"NOT_RUN"' "$work/eval.out" ||
  { cat "$work/eval.err"; fail "the candidate was not compiled and disassembled in the copy"; }
grep -q 'GMMA' "$work/eval.out" || fail "no SASS families in the copy's verdict"
if grep -q -- "$source_dir" "$work/eval.out"; then fail "the verdict names the original tree"; fi
if [[ -n "$worker" && "$worker" == "$source_dir"/* ]]; then
  placed="$copy/${worker#"$source_dir"/}"
  mkdir -p "$(dirname "$placed")"
  cp "$worker" "$placed"
  isolated ldd "$placed" >"$work/ldd.out" 2>&1 || true
  grep -q "libtvm_ffi.so => $copy/" "$work/ldd.out" ||
    { cat "$work/ldd.out"; fail "the copied worker does not find the copy's libtvm_ffi.so"; }
fi
echo "PASS: the copied build ran with the original trees hidden"
