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
