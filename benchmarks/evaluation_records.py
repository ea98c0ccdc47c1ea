"""Reads what `ptxbench eval --json` (or `--out FILE`) wrote: one JSON record per line (JSON
Lines), or an older single JSON array or object."""
import json


def read_evaluations(path):
    with open(path) as f:
        text = f.read()
    stripped = text.strip()
    if not stripped:
        return []
    if stripped.startswith("["):
        return json.loads(stripped)
    try:
        return [json.loads(stripped)]
    except ValueError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
