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
    def rows_of(split):
        path = pathlib.Path(out, split, "traces.jsonl")
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    train, heldout = rows_of("train"), rows_of("heldout")
    rows = train + heldout + rows_of("unknown")
    assert rows, "no rows"
    assert not pathlib.Path(out, "traces.jsonl").exists(), "a file of every split together"
    # The run's held-out trajectory does not record its split: the suite's split puts it apart.
    assert heldout and all(r["task"] == "mha_fwd_lse_d96" for r in heldout), heldout
    assert all(r["split"] == "train" and r["task"] != "mha_fwd_lse_d96" for r in train), train
    assert all(r["split"] == "heldout" for r in heldout)
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
    assert len(loaded) == len(train), (len(loaded), len(train))
    assert len(datasets.load_dataset(out, split="heldout")) == len(heldout)
    # Declared, not inferred: a CPU run's all-null speedups still load as float64.
    assert str(loaded.features["speedup"]) == "Value('float64')", loaded.features["speedup"]
    assert str(loaded.features["code"]) == "Value('string')", loaded.features["code"]
    print(f"{len(train)} train and {len(heldout)} held-out rows; datasets loads them: "
          f"{loaded.column_names}")
