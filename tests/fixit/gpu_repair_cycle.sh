#!/bin/sh
# GPU test: `ptxbench fixit demo` on the H200. The shipped broken GEMMs fail for real, the
# replay teacher repairs them with the expert kernel, and every kept repair must be verified on
# the GPU (PASSED with the requested families executed), exported with "verified": true.
set -eu
out="$1"
rm -rf "$out"
"$PTXBENCH_EXE" fixit demo --out "$out"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
verified = [json.loads(l) for l in open(f"{out}/verified.jsonl")]
assert verified, "no repair reached verify"
statuses = [v["status"] for v in verified]
print("verify:", statuses)
assert all(s == "verified" for s in statuses), statuses
import glob
folder = glob.glob(f"{out}/export/demo/*/README.md")[0].rsplit("/", 1)[0]
def rows_of(kind):
    return [json.loads(l) for split in ("train", "heldout") for l in open(f"{folder}/{split}/{kind}.jsonl")]
rows = rows_of("fixit")
assert len(rows) == len(verified), (len(rows), len(verified))
assert all(r["verified"] for r in rows)
assert all(r["provenance"]["gpu"] for r in rows), "verification names no GPU"
kernelgen = rows_of("kernelgen")
assert any(r["verified"] for r in kernelgen), "the expert's passing turn is not a verified KernelGen row"
print(f"{len(rows)} verified Fixit rows, {len(kernelgen)} KernelGen rows")
PY
