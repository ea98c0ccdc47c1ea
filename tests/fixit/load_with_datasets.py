"""Loads exported Fixit rows with Hugging Face `datasets`, as a training script would: a file of
rows (one schema inferred), or an export folder (`load_dataset(FOLDER)`: the card's `configs:`
gives the `train` and `heldout` splits, its `dataset_info:` the column types). Checks the loss
flags, the reasoning column and the provenance came through, and every row is in its split."""
import pathlib
import sys

import datasets

COLUMNS = {"id", "kind", "split", "verified", "messages", "provenance"}


def check(rows, split_name=None) -> None:
    names = set(rows.column_names)
    assert names == COLUMNS, f"columns {sorted(names)}, expected {sorted(COLUMNS)}"
    messages = rows.features["messages"]
    message = messages[0] if isinstance(messages, list) else messages.feature
    assert set(message.keys()) == {"role", "content", "loss", "reasoning"}, message
    for key in ("run", "trajectory", "turn", "task", "arch", "context", "verdict", "teacher",
                "evaluation_source_hash"):
        assert key in rows.features["provenance"], key
    assert len(rows) > 0, "no rows"
    for row in rows:
        assert row["kind"] in ("fixit", "kernelgen"), row["kind"]
        assert row["split"] in ("train", "heldout"), row["split"]
        if split_name is not None:
            assert row["split"] == split_name, (row["id"], row["split"], split_name)
        losses = [m["loss"] for m in row["messages"]]
        assert losses[-1] is True and not any(losses[:-1]), losses
        if row["kind"] == "fixit":
            assert [m["role"] for m in row["messages"]] == ["system", "user", "assistant", "user", "assistant"]
            assert row["messages"][-1]["reasoning"], "a Fixit row without its explanation"


def main(path: str) -> int:
    if pathlib.Path(path).is_dir():
        loaded = datasets.load_dataset(path)
        assert set(loaded) <= {"train", "heldout"} and loaded, f"splits {sorted(loaded)}"
        for split_name, rows in loaded.items():
            check(rows, split_name)
        counts = {name: len(rows) for name, rows in loaded.items()}
        print(f"datasets {datasets.__version__}: {counts} from {path}, splits from the card")
        return 0
    rows = datasets.load_dataset("json", data_files=path, split="train")
    check(rows)
    print(f"datasets {datasets.__version__}: {len(rows)} rows from {path}, one schema")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
