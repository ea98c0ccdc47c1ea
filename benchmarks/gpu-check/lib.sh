# Shared by the parts of scripts/gpu-check.sh (sourced). Set by that script: $PTXBENCH (the
# CLI), $WORKER, $BUILD, $TREE (the repository), $RESULTS (this part's folder), $DEADLINE_S.
now() { date +%s%3N; }
t0=$(now)
left() { echo $(( DEADLINE_S - 10 - ($(now) - t0) / 1000 )); }  # seconds until the part's deadline
secs() { printf '%d.%03d' $(( ($(now) - $1) / 1000 )) $(( ($(now) - $1) % 1000 )); }
log() { printf '%-32s rc=%-3s %s s\n' "$1" "$2" "$(secs "$3")" | tee -a "$RESULTS/summary.txt"; }

# The task and arch a solution or control names on its first line (`task=NAME arch=ARCH`).
header_field() { head -1 "$2" | sed -n "s/.*$1=\\([^ ]*\\).*/\\1/p"; }

# Files judged one after another by `ptxbench eval --json` (each on the task its header names),
# appended to $RESULTS/NAME.jsonl; a file left when the deadline is near is listed as not judged.
eval_stream() {  # name [eval args...] -- files...
  local name=$1; shift
  local args=()
  while [[ $# -gt 0 && "$1" != -- ]]; do args+=("$1"); shift; done
  shift
  local s f l task arch
  s=$(now)
  for f in "$@"; do
    l=$(left)
    if [[ "$l" -lt 30 ]]; then
      echo "$(basename "$f") not judged (part deadline)" | tee -a "$RESULTS/not-judged.txt"
      continue
    fi
    task=$(header_field task "$f"); arch=$(header_field arch "$f")
    timeout -k 5 "$l" "$PTXBENCH" eval "$f" --task "$task" --arch "${arch:-hopper}" \
      --tasks-dir "$TREE/tasks" --json "${args[@]}" >>"$RESULTS/$name.jsonl" 2>>"$RESULTS/$name.err"
  done
  log "stream $name ($# files)" $? "$s"
}

# A part's scratch folder ($work, removed at exit), the solutions ($S) and the pid of a
# `ptxbench serve` the part starts ($serve_pid, stopped at exit if still running).
scratch_and_service() {
  S="$TREE/solutions"
  work="$(mktemp -d)"
  serve_pid=""
  trap '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; rm -rf "$work"' EXIT
}
