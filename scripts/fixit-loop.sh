#!/usr/bin/env bash
# The fine-tuning loop: base run -> Fixit stages -> train -> serve -> tuned run -> report.
# Every step is skipped when its output exists, so a rerun resumes where the loop stopped.
# docs/training.md describes each step and its files.
#
#   scripts/fixit-loop.sh --base MODEL [--grid FILE] [--recipe NAME|FILE] [--work DIR]
#   scripts/fixit-loop.sh --tiny [--work DIR]        # no GPU, no weights: a tiny random model
#
# Options:
#   --base MODEL       base model: a local folder or a hub id (with --revision REV)
#   --grid FILE        the run grid (run.yaml's fields without models/out); default: the tiny
#                      grid with --tiny, else python/ptxbench_train/grids/core.yaml
#   --recipe R         training recipe: reference (default), tiny, or a YAML/JSON file
#   --fixit-config F   config for `ptxbench fixit all` (docs/fixit.md)
#   --rows FILE        train on these rows instead of running the Fixit stages
#   --serve ENGINE     auto (vLLM where installed, default), builtin or vllm
#   --port N           server port (default 8000; --tiny picks a free one)
#   --gpus N           training processes under accelerate launch
#   --work DIR         where everything goes (default runs/fixit-loop, or runs/fixit-loop-tiny)
#   --ptxbench BIN     the ptxbench binary (default build/src/ptxbench)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pkg="$root/python/ptxbench_train"

tiny=0 base="" revision="" grid="" recipe="" fixit_config="" rows="" engine=auto port="" gpus=1
work="" ptxbench="$root/build/src/ptxbench" max_tokens=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tiny) tiny=1 ;;
    --base) base="$2"; shift ;;
    --revision) revision="$2"; shift ;;
    --grid) grid="$2"; shift ;;
    --recipe) recipe="$2"; shift ;;
    --fixit-config) fixit_config="$2"; shift ;;
    --rows) rows="$2"; shift ;;
    --serve) engine="$2"; shift ;;
    --port) port="$2"; shift ;;
    --gpus) gpus="$2"; shift ;;
    --work) work="$2"; shift ;;
    --ptxbench) ptxbench="$2"; shift ;;
    --max-tokens) max_tokens="$2"; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "fixit-loop: $1: unknown option (--help lists them)" >&2; exit 2 ;;
  esac
  shift
done

python="${PTXBENCH_TRAIN_PYTHON:-$root/.deps/python-train/bin/python}"
python="$(command -v "$python" || echo "$python")"  # also a name on PATH, e.g. python3
if [ ! -x "$python" ]; then
  echo "fixit-loop: $python: no training venv; run scripts/setup.sh (or set PTXBENCH_TRAIN_PYTHON)" >&2
  exit 2
fi
if [ ! -x "$ptxbench" ]; then
  echo "fixit-loop: $ptxbench: no ptxbench binary; build it (scripts/build.sh) or pass --ptxbench" >&2
  exit 2
fi
export PYTHONPATH="$pkg/src${PYTHONPATH:+:$PYTHONPATH}"
train_cli=("$python" -m ptxbench_train)

if [ "$tiny" = 1 ]; then
  work="${work:-$root/runs/fixit-loop-tiny}"
  grid="${grid:-$pkg/grids/tiny.yaml}"
  recipe="${recipe:-tiny}"
  engine=builtin port="${port:-0}" max_tokens="${max_tokens:-32}"
else
  [ -n "$base" ] || { echo "fixit-loop: --base MODEL is required (or --tiny)" >&2; exit 2; }
  work="${work:-$root/runs/fixit-loop}"
  grid="${grid:-$pkg/grids/core.yaml}"
  recipe="${recipe:-reference}"
  port="${port:-8000}" max_tokens="${max_tokens:-16384}"
fi
mkdir -p "$work"
work="$(cd "$work" && pwd)"
log() { echo "fixit-loop: $*"; }

# --- 0. the tiny model (--tiny only) ----------------------------------------------------------
if [ "$tiny" = 1 ]; then
  base="$work/tiny-model"
  if [ -f "$base/ptxbench_tiny.json" ]; then
    log "tiny model: $base exists, skipped"
  else
    corpus=("$pkg/tests/data/rows.jsonl")
    for f in "$root"/context/hopper/*.md; do [ -f "$f" ] && corpus+=("$f"); done
    "${train_cli[@]}" make-tiny-model "$base" --size tiny --corpus "${corpus[@]}"
  fi
fi
served_name="base"
tuned_name="tuned"

# --- serving: start in the background, wait until healthy, stop on exit -----------------------
server_pid=""
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid"; wait "$server_pid" || true
  fi
  server_pid=""
}
trap stop_server EXIT
start_server() { # adapter folders as NAME=DIR arguments
  local ready="$work/server.ready" adapters=()
  for a in "$@"; do adapters+=(--adapter "$a"); done
  rm -f "$ready"
  local serve_args=(serve --engine "$engine" --base "$base" --served-name "$served_name"
                    --port "$port" "${adapters[@]}")
  [ -z "$revision" ] || serve_args+=(--revision "$revision")
  if [ "$engine" = builtin ]; then serve_args+=(--ready-file "$ready" --max-new-tokens "$max_tokens"); fi
  "${train_cli[@]}" "${serve_args[@]}" >"$work/server.log" 2>&1 &
  server_pid=$!
  local url="" deadline=$((SECONDS + 1800))
  while [ $SECONDS -lt $deadline ]; do
    kill -0 "$server_pid" 2>/dev/null || { echo "fixit-loop: the server exited; $work/server.log:" >&2; tail -20 "$work/server.log" >&2; exit 1; }
    if [ -f "$ready" ]; then url="$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["base_url"])' "$ready")"; fi
    [ -n "$url" ] || url="http://127.0.0.1:$port/v1"
    if "$python" -c 'import sys,urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)' "${url%/v1}/health" 2>/dev/null; then
      base_url="$url"; log "serving at $base_url ($(grep -m1 '^serving' "$work/server.log" || echo "$engine"))"; return 0
    fi
    [ -f "$ready" ] || url=""
    sleep 2
  done
  echo "fixit-loop: the server did not become healthy in 30 min ($work/server.log)" >&2; exit 1
}
evaluate() { # LABEL=MODEL...
  local sides=()
  for s in "$@"; do sides+=(--side "$s"); done
  "${train_cli[@]}" evaluate --ptxbench "$ptxbench" --base-url "$base_url" --grid "$grid" --work "$work" \
    --max-tokens "$max_tokens" --no-report "${sides[@]}"
}
base_url=""

# --- 1. base run ------------------------------------------------------------------------------
if [ -f "$work/runs/base/.loop-done" ]; then
  log "base run: $work/runs/base done, skipped"
else
  start_server
  evaluate "base=$served_name" || [ $? -eq 1 ]   # 1: provider errors; rerun the loop to retry them
  stop_server
  touch "$work/runs/base/.loop-done"
fi

# --- 2. Fixit stages: mine, balance, repair, verify, explain, export (docs/fixit.md) ----------
# `ptxbench fixit all` runs them from the user's config (--fixit-config: teacher, recipes,
# filters) over this loop's Fixit folder and base run (its --fixit and --runs). Rows: the first
# recipe's export folder, the first `export:` line it prints. --tiny without --fixit-config or
# --rows trains on the shipped example rows, said here: a random model's run has nothing a
# teacher can repair.
rows_files=()
if [ -n "$rows" ]; then
  rows_files=("$rows"); log "rows: $rows given, Fixit stages skipped"
elif [ "$tiny" = 1 ] && [ -z "$fixit_config" ]; then
  rows_files=("$pkg/tests/data/rows.jsonl")
  log "rows: --tiny without --fixit-config or --rows trains on the shipped example rows ${rows_files[0]}"
else
  [ -n "$fixit_config" ] || {
    echo "fixit-loop: --fixit-config FILE is required (the teacher and recipes of 'ptxbench fixit all', docs/fixit.md), or pass --rows FILE" >&2
    exit 2; }
  all_args=(fixit all --config "$fixit_config" --fixit "$work/fixit" --runs "$work/runs/base" --kernelgen)
  [ "$tiny" = 0 ] || all_args+=(--no-gpu --include-unverified)
  if [ -f "$work/fixit/.loop-done" ]; then
    log "Fixit: $work/fixit done, skipped"
  else
    log "Fixit: $ptxbench ${all_args[*]}"
    "$ptxbench" "${all_args[@]}" | tee "$work/fixit-all.log" || {
      echo "fixit-loop: 'ptxbench fixit all' failed (above); rerun the loop to resume it" >&2; exit 1; }
    touch "$work/fixit/.loop-done"
  fi
  # export/<recipe>/<length>-<explainer>/, from "export: N Fixit row(s), ... -> DIR (card: README.md)".
  exported="$(sed -n 's/^export: .* -> \(.*\) (card: README.md)$/\1/p' "$work/fixit-all.log" | head -n 1)"
  if [ -z "$exported" ] || [ ! -f "$exported/README.md" ]; then
    echo "fixit-loop: $work/fixit-all.log names no export folder; rerun after removing $work/fixit/.loop-done" >&2; exit 1
  fi
  rows_files=("$exported")
fi
"${train_cli[@]}" check-rows "${rows_files[@]}"

# --- 3. train ---------------------------------------------------------------------------------
train_args=(train --base "$base" --data "${rows_files[@]}" --out "$work/train" --recipe "$recipe" --gpus "$gpus")
[ -z "$revision" ] || train_args+=(--revision "$revision")
if [ -f "$work/train/run_card.json" ]; then
  log "train: $work/train/run_card.json exists, skipped"
else
  "${train_cli[@]}" "${train_args[@]}"
fi

# --- 4-5. serve base + adapter, tuned run ---------------------------------------------------------
if [ -f "$work/runs/tuned/.loop-done" ]; then
  log "tuned run: $work/runs/tuned done, skipped"
else
  start_server "$tuned_name=$work/train/adapter"
  evaluate "tuned=$tuned_name" || [ $? -eq 1 ]
  stop_server
  touch "$work/runs/tuned/.loop-done"
fi

# --- 6. report: base vs tuned, train split apart from held-out split ----------------------------
base_url="${base_url:-http://127.0.0.1/v1}"
"${train_cli[@]}" evaluate --ptxbench "$ptxbench" --base-url "$base_url" --grid "$grid" --work "$work" \
  --side "base=$served_name" --side "tuned=$tuned_name" --report-only
log "done: report $work/report/report.html, run card $work/train/run_card.md, loss $work/train/loss.png"
