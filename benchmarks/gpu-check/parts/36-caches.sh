#!/usr/bin/env bash
# The verdict cache and the seed pool on the GPU: the expert GEMM judged twice with a fixed seed
# and a verdict cache (the second verdict must be `cached`, same verdict and speedup, in well
# under a second of GPU stages), then six times with --seed-pool 2 (every record names its pool
# draw; at most two are judged on the GPU, the rest come from the cache), then a replay of one
# pooled verdict's input_seed with --seed and no cache (the same verdict, judged afresh).
# Last, the judge's reference cache (below).
set -u
source "$TREE/benchmarks/gpu-check/lib.sh"
gemm="$TREE/solutions/hopper/gemm_bf16_nt_warp_specialized.cu"
args=(--task gemm_n7168_k5120 --arch hopper --tasks-dir "$TREE/tasks" --json
      --compile-cache "$RESULTS/compiles")
export PTXBENCH_CACHE_DIR="$RESULTS/cache"  # the pool's salt, made for this part
s=$(now)
for i in 1 2; do
  timeout -k 5 "$(left)" "$PTXBENCH" eval "$gemm" "${args[@]}" --seed 12345 \
    --verdict-cache "$RESULTS/verdicts-fixed" >>"$RESULTS/fixed-seed.jsonl" 2>>"$RESULTS/caches.err"
done
log "fixed seed, twice" $? "$s"
s=$(now)
for i in 1 2 3 4 5 6; do
  timeout -k 5 "$(left)" "$PTXBENCH" eval "$gemm" "${args[@]}" --seed-pool 2 \
    --verdict-cache "$RESULTS/verdicts-pool" >>"$RESULTS/seed-pool.jsonl" 2>>"$RESULTS/caches.err"
done
log "seed pool of 2, six times" $? "$s"
seed=$(head -1 "$RESULTS/seed-pool.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["input_seed"])')
s=$(now)
timeout -k 5 "$(left)" "$PTXBENCH" eval "$gemm" "${args[@]}" --seed "$seed" \
  >"$RESULTS/replay.jsonl" 2>>"$RESULTS/caches.err"
log "replay of a pooled seed" $? "$s"
python3 - "$RESULTS" <<'PY' | tee -a "$RESULTS/summary.txt"
import json, sys, pathlib
root = pathlib.Path(sys.argv[1])
def records(name):
    path = root / name
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []
def gpu_s(r):
    s = {x["stage"]: x for x in r.get("stages", [])}
    pick = lambda n: s.get(n, {}).get("seconds", 0) if s.get(n, {}).get("status") not in (None, "skipped", "not_run") else 0
    return max(pick("sanitize"), pick("correctness")) + pick("dynamic_sass") + pick("timing")
def speedup(r):
    return next((w.get("speedup") for w in r.get("workloads", []) if w.get("headline")), None)
fixed = records("fixed-seed.jsonl")
for r in fixed:
    print(f"fixed   verdict={r['verdict']} cached={'cached' in r} seed={r['input_seed']} speedup={speedup(r)} gpu_s={gpu_s(r):.2f} wall_s={r['wall_seconds']:.2f}")
ok = len(fixed) == 2 and "cached" not in fixed[0] and "cached" in fixed[1] and fixed[0]["verdict"] == fixed[1]["verdict"]
print("fixed seed: second verdict cached and equal:", "yes" if ok else "NO")
pool = records("seed-pool.jsonl")
for r in pool:
    print(f"pool    verdict={r['verdict']} cached={'cached' in r} draw={r.get('seed_pool')} seed={r['input_seed']} wall_s={r['wall_seconds']:.2f}")
fresh = sum("cached" not in r for r in pool)
print(f"seed pool: {len(pool)} verdicts, {fresh} judged on the GPU (expected <= 2), {len({r['input_seed'] for r in pool})} distinct seeds")
replay = records("replay.jsonl")
if replay and pool:
    print(f"replay of seed {replay[0]['input_seed']}: verdict {replay[0]['verdict']} (pooled: {pool[0]['verdict']}), cached={'cached' in replay[0]}")
PY

# The judge's reference cache (docs/gpu-engine.md, "Reference cache"): the expert GEMM and the
# expert attention forward d128, three verdicts each with a pool of one seed (the same trials each
# time) and no verdict cache, so every verdict is judged on the GPU. The second and third must
# show reference_cache hits (and no misses), a shorter correctness stage than the first, and the
# first's verdict. Its own cache folder outside $RESULTS (entries reach a GB), removed at the end.
refcache=$(mktemp -d /tmp/ptxbench-refcache-XXXXXX)
attention="$TREE/solutions/hopper/mha_fwd_lse_d128.cu"
for name in gemm attention; do
  if [[ $name == gemm ]]; then file=$gemm; task=gemm_n7168_k5120; else file=$attention; task=mha_fwd_lse_d128; fi
  s=$(now)
  for i in 1 2 3; do
    PTXBENCH_CACHE_DIR="$refcache" timeout -k 5 "$(left)" "$PTXBENCH" eval "$file" --task "$task" \
      --arch hopper --tasks-dir "$TREE/tasks" --json --compile-cache "$RESULTS/compiles" \
      --seed-pool 1 --reference-cache >>"$RESULTS/reference-cache-$name.jsonl" 2>>"$RESULTS/caches.err"
  done
  log "reference cache, $name x3" $? "$s"
done
du -sh "$refcache" | tee -a "$RESULTS/summary.txt"
rm -rf "$refcache"
python3 - "$RESULTS" <<'PY' | tee -a "$RESULTS/summary.txt"
import json, sys, pathlib
root = pathlib.Path(sys.argv[1])
for name in ("gemm", "attention"):
    path = root / f"reference-cache-{name}.jsonl"
    rows = [json.loads(l) for l in path.read_text().splitlines() if l.strip()] if path.exists() else []
    figures = []
    for r in rows:
        c = next((s for s in r.get("stages", []) if s["stage"] == "correctness"), {})
        rc = c.get("reference_cache", {})
        figures.append((r["verdict"], c.get("seconds", 0.0), rc.get("hits"), rc.get("misses")))
        print(f"{name:9} verdict={r['verdict']} seed={r.get('input_seed')} correctness_s={c.get('seconds', 0):.2f} reference_cache={rc or 'absent'}")
    ok = (len(figures) == 3 and all(f[0] == figures[0][0] for f in figures)
          and all((f[2] or 0) > 0 and f[3] == 0 for f in figures[1:])
          and all(f[1] < figures[0][1] for f in figures[1:]))
    print(f"{name}: second and third verdicts faster with reference-cache hits and the same verdict:", "yes" if ok else "NO")
PY
