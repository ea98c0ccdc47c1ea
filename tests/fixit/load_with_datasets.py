"""Loads exported Fixit rows with Hugging Face `datasets`, as a training script would, and checks
that one schema was inferred and the loss flags and provenance came through."""
import sys

import datasets


def main(path: str) -> int:
    rows = datasets.load_dataset("json", data_files=path, split="train")
    names = set(rows.column_names)
    expected = {"id", "kind", "split", "verified", "messages", "provenance"}
    assert names == expected, f"columns {sorted(names)}, expected {sorted(expected)}"
    message = rows.features["messages"][0] if isinstance(rows.features["messages"], list) else rows.features["messages"].feature
    assert set(message.keys()) == {"role", "content", "loss"}, message
    for key in ("run", "trajectory", "turn", "task", "arch", "context", "verdict", "teacher",
                "evaluation_source_hash"):
        assert key in rows.features["provenance"], key
    assert len(rows) > 0, "no rows"
    for row in rows:
        assert row["kind"] in ("fixit", "kernelgen"), row["kind"]
        assert row["split"] in ("train", "heldout"), row["split"]
        losses = [m["loss"] for m in row["messages"]]
        assert losses[-1] is True and not any(losses[:-1]), losses
        if row["kind"] == "fixit":
            assert [m["role"] for m in row["messages"]] == ["system", "user", "assistant", "user", "assistant"]
    print(f"datasets {datasets.__version__}: {len(rows)} rows from {path}, one schema")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
