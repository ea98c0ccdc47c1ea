"""Runs `ptxbench export-traces` on a run directory and loads the result: every line parses,
every row has the same columns, and (where the `datasets` package is installed) it loads."""

import json
import pathlib
import subprocess
import sys
import tempfile

exe, run_dir = sys.argv[1], sys.argv[2]
with tempfile.TemporaryDirectory() as out:
    subprocess.run([exe, "export-traces", run_dir, "--out", out], check=True)
    rows = [json.loads(line) for line in pathlib.Path(out, "traces.jsonl").read_text().splitlines()]
    assert rows, "no rows"
    columns = set(rows[0])
    for row in rows:
        assert set(row) == columns, row.keys()
    for column in ("task", "arch", "context", "model", "turn", "code", "verdict",
                   "executed_families", "speedup", "exploit"):
        assert column in columns, column
    assert pathlib.Path(out, "README.md").read_text().startswith("---\n")
    try:
        import datasets
    except ImportError:
        print(f"{len(rows)} rows read; the datasets package is not installed here")
        sys.exit(0)
    loaded = datasets.load_dataset(out, split="train")
    assert len(loaded) == len(rows), (len(loaded), len(rows))
    print(f"{len(rows)} rows; datasets loads them: {loaded.column_names}")
