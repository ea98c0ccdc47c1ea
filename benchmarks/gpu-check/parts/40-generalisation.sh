#!/usr/bin/env bash
# Verdicts that generalise, on the GPU (docs/correctness.md: "Unseen workloads", "Fresh inputs
# per verdict", "Audited timed calls"). Run from the repository root by the GPU validation script
# with $PTXBENCH (the built CLI) and $RESULTS (an output folder); writes records and logs under
# $RESULTS/40-generalisation and prints one line per candidate and a summary. Exit 1 when any
# check fails.
#   1. every expert (solutions/hopper) and simple (solutions/simple) kernel through
#      `ptxbench eval --sandbox strict --unseen require` on a reduced copy of its task: the
#      headline, the new input distributions (uniform, large, near_ties / equal_scores) and the
#      task's unseen rule. Checked: the correctness stage passed and every unseen workload was
#      correct (`generalisation`); the overall verdict is printed (expected PASSED; runs share
#      the GPU, so a proof or timing figure may be disturbed, never a correctness result).
#   2. the two controls of the audited timed calls, full verdict checked:
#      broken/gemm_wrong_after_three_calls.cu INCORRECT_NUMERICAL,
#      broken/gemm_skips_every_other_call.cu FORBIDDEN.
#   3. `--seed` replay: the expert GEMM twice with --seed 12345: both records carry input_seed
#      12345 and the same per-workload statuses.
# GENERALISATION_JOBS (default 8) evaluations run at once; GENERALISATION_LIMIT_S (default 240)
# bounds each.
set -uo pipefail
: "${PTXBENCH:?set PTXBENCH to the built ptxbench CLI}" "${RESULTS:?set RESULTS to an output folder}"
out="$RESULTS/40-generalisation"
rm -rf "$out" && mkdir -p "$out/records" "$out/logs"
jobs="${GENERALISATION_JOBS:-8}"
limit_s="${GENERALISATION_LIMIT_S:-240}"
start_s=$(date +%s)

# The reduced suite: per task the headline, the new-distribution workloads and the unseen rule.
python3 - "$out/tasks" <<'PY'
import glob, json, os, sys
dest = sys.argv[1]
for path in glob.glob("tasks/*/*.json"):
    task = json.load(open(path))
    keep = [w for w in task["workloads"]
            if w.get("headline") or w.get("distribution") in ("uniform", "large", "near_ties",
                                                               "equal_scores")]
    task["workloads"] = keep
    family = os.path.basename(os.path.dirname(path))
    os.makedirs(os.path.join(dest, family), exist_ok=True)
    json.dump(task, open(os.path.join(dest, family, os.path.basename(path)), "w"), indent=1)
PY

# One evaluation: <file> <task> <expect> <check: unseen|verdict> <name> [extra flags...]
run_one() {
  local file="$1" task="$2" expect="$3" check="$4" name="$5"
  shift 5
  local record="$out/records/$name.jsonl"
  timeout "$limit_s" "$PTXBENCH" eval "$file" --task "$task" --arch hopper --sandbox strict \
    --tasks-dir "$out/tasks" --unseen require --racecheck-timeout 10 --json --out "$record" "$@" \
    >"$out/logs/$name.log" 2>&1
  local rc=$?
  python3 - "$record" "$name" "$expect" "$check" "$rc" <<'PY'
import json, sys
record, name, expect, check, rc = sys.argv[1:]
try:
    r = json.loads(open(record).readline())
except Exception:
    print(f"FAIL {name}: no record (exit {rc})")
    sys.exit(0)
g = r.get("generalisation") or {}
stages = {s["stage"]: s["status"] for s in r.get("stages", [])}
unseen = f'{g.get("unseen_passed", "-")}/{g.get("unseen_total", "-")}'
if check == "unseen":
    ok = stages.get("correctness") == "passed" and g.get("unseen_total", 0) > 0 \
        and g.get("unseen_passed") == g.get("unseen_total")
else:
    ok = r["verdict"] == expect
line = (f'{"ok  " if ok else "FAIL"} {name}: verdict {r["verdict"]} (expected {expect}), '
        f'correctness {stages.get("correctness")}, unseen {unseen} correct, '
        f'input_seed {r.get("input_seed")}; {r.get("message", "")[:200]}')
sys.stdout.write(line + "\n")  # one write: parallel runs share the pipe
sys.stdout.flush()
PY
}
export -f run_one
export PTXBENCH out limit_s

# Every expert and simple kernel of the Hopper suite, and the two controls.
list="$out/candidates.txt"
: >"$list"
for file in solutions/hopper/*.cu solutions/simple/*.cu; do
  header="$(head -1 "$file")"
  task="$(sed -n 's/.*task=\([^ ]*\).*/\1/p' <<<"$header")"
  [[ -n "$task" ]] || continue
  echo "$file $task PASSED unseen $(basename "$file" .cu)" >>"$list"
done
echo "solutions/broken/gemm_wrong_after_three_calls.cu gemm_n7168_k5120 INCORRECT_NUMERICAL verdict gemm_wrong_after_three_calls" >>"$list"
echo "solutions/broken/gemm_skips_every_other_call.cu gemm_n7168_k5120 FORBIDDEN verdict gemm_skips_every_other_call" >>"$list"
# The replay: the expert GEMM twice with one seed.
for i in 1 2; do
  echo "solutions/hopper/gemm_bf16_nt_warp_specialized.cu gemm_n7168_k5120 PASSED unseen seed_replay_$i --seed 12345" >>"$list"
done

xargs -P "$jobs" -L 1 bash -c 'run_one "$@"' _ <"$list" | tee "$out/results.txt"

python3 - "$out" >>"$out/results.txt" <<'PY'
import json, sys
out = sys.argv[1]
runs = []
for i in (1, 2):
    try:
        runs.append(json.loads(open(f"{out}/records/seed_replay_{i}.jsonl").readline()))
    except Exception:
        pass
if len(runs) != 2:
    print("FAIL seed replay: a record is missing")
else:
    same_seed = all(r.get("input_seed") == 12345 for r in runs)
    statuses = [[(w["workload"], w["status"]) for w in r.get("workloads", [])] for r in runs]
    ok = same_seed and statuses[0] == statuses[1] and statuses[0]
    print(f'{"ok  " if ok else "FAIL"} seed replay: input_seed {[r.get("input_seed") for r in runs]}, '
          f'same per-workload statuses: {statuses[0] == statuses[1]}')
PY
tail -1 "$out/results.txt"

passed=$(grep -c '^ok' "$out/results.txt")
failed=$(grep -c '^FAIL' "$out/results.txt")
echo "40-generalisation: $passed ok, $failed failed, $(( $(date +%s) - start_s )) s; records in $out/records"
[[ "$failed" -eq 0 ]]
