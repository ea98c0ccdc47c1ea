#!/usr/bin/env bash
# Builds the shipped docker/Dockerfile for real with the first image builder this machine has
# (buildah, podman, or docker with a running daemon), then checks the image: `ptxbench` on PATH
# answers, the unprivileged `agent` user exists. The build downloads Debian and CUDA packages, so
# it needs the network and about an hour the first time. Without a builder (or with
# PTXBENCH_SKIP_IMAGE_BUILD=1) it exits 77: Skipped, never Passed.
# Usage: dockerfile_build_test.sh SOURCE_DIR
set -u
source_dir=$1
skip() { echo "dockerfile build: $1: not built"; exit 77; }
[[ "${PTXBENCH_SKIP_IMAGE_BUILD:-0}" == 1 ]] && skip "PTXBENCH_SKIP_IMAGE_BUILD=1"
if command -v buildah >/dev/null 2>&1; then
  build=(buildah bud) run=(podman run --rm) remove=(buildah rmi)
  command -v podman >/dev/null 2>&1 || run=()
elif command -v podman >/dev/null 2>&1; then
  build=(podman build) run=(podman run --rm) remove=(podman rmi)
elif command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  build=(docker build) run=(docker run --rm) remove=(docker rmi)
else
  skip "no image builder here (buildah, podman, or docker with a running daemon)"
fi
tag="ptxbench-dockerfile-test:$$"
trap '"${remove[@]}" "$tag" >/dev/null 2>&1' EXIT
echo "dockerfile build: ${build[*]} -f docker/Dockerfile -t $tag $source_dir"
if ! "${build[@]}" -f "$source_dir/docker/Dockerfile" -t "$tag" "$source_dir"; then
  echo "dockerfile build: FAILED to build"
  exit 1
fi
if [[ ${#run[@]} -eq 0 ]]; then
  echo "dockerfile build: built; no runner (podman) to look inside the image"
  exit 0
fi
"${run[@]}" "$tag" ptxbench --version || { echo "dockerfile build: ptxbench does not run"; exit 1; }
"${run[@]}" "$tag" id agent || { echo "dockerfile build: no agent user"; exit 1; }
echo "dockerfile build: the image builds, ptxbench runs, the agent user exists"
