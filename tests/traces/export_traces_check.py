"""Runs `ptxbench export-traces` on a run directory and loads the result: every line parses,
every row has the same columns, the rows rebuild each conversation's opening, and (where the
`datasets` package is installed) it loads with the card's declared column types."""

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
                   "executed_families", "speedup", "exploit", "system_prompt", "task_prompt",
                   "reasoning", "feedback"):
        assert column in columns, column
    assert all(row["task_prompt"] for row in rows), "a row without its task prompt"
    assert pathlib.Path(out, "README.md").read_text().startswith("---\n")
    try:
        import datasets
    except ImportError:
        print(f"{len(rows)} rows read; the datasets package is not installed here")
        sys.exit(0)
    loaded = datasets.load_dataset(out, split="train")
    assert len(loaded) == len(rows), (len(loaded), len(rows))
    # Declared, not inferred: a CPU run's all-null speedups still load as float64.
    assert str(loaded.features["speedup"]) == "Value('float64')", loaded.features["speedup"]
    assert str(loaded.features["code"]) == "Value('string')", loaded.features["code"]
    print(f"{len(rows)} rows; datasets loads them: {loaded.column_names}")
