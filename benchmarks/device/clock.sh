# Shared by the device batches (sourced): $build and $out come from scripts/gpu-check.sh's custom
# step; BATCH (its name) and DEFAULT_DEADLINE_S are set by the batch before sourcing.
P="$build/src/ptxbench"
R="${OUT:-/tmp}"
archive() { tar -czf "$R/$BATCH.tar.gz" -C "$out" . 2>/dev/null; }
now() { date +%s%3N; }
t0=$(now)
deadline=${BATCH_DEADLINE_S:-$DEFAULT_DEADLINE_S}
left() { echo $(( deadline - ($(now) - t0) / 1000 )); }       # seconds until the deadline
secs() { printf '%d.%03d' $(( ($(now) - $1) / 1000 )) $(( ($(now) - $1) % 1000 )); }
log() { printf '%-28s rc=%-3s %s s\n' "$1" "$2" "$(secs "$3")" >>"$out/$BATCH-summary.txt"; }
# One `ptxbench eval` of FILE on TASK, alone unless the caller runs it in the background:
# "$out/NAME.jsonl" and .err, a summary line, the archive refreshed. Skipped near the deadline.
ev() {  # name limit file task [eval args...]
  local name=$1 limit=$2 file=$3 task=$4; shift 4
  local l; l=$(left); [ "$l" -lt 20 ] && { echo "$name not run (deadline)" >>"$out/$BATCH-summary.txt"; return; }
  [ "$limit" -gt "$l" ] && limit=$l
  local s; s=$(now)
  timeout -k 5 "$limit" "$P" eval "$file" --task "$task" --arch hopper --tasks-dir "$tree/tasks" \
    --json "$@" >"$out/$name.jsonl" 2>"$out/$name.err"
  log "$name" $? "$s"; archive
}
