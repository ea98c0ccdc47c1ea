import json

import pytest
from conftest import ROWS

from ptxbench_train.rows import RowError, files_hash, read_rows


def test_reads_every_row_with_its_fields():
    rows = read_rows(ROWS)
    assert len(rows) == 12
    fixit = rows[0]
    assert fixit.kind == "fixit" and fixit.split == "train" and fixit.verified
    assert [m.loss for m in fixit.messages] == [False, False, False, False, True]
    assert fixit.messages[4].role == "assistant" and fixit.messages[4].reasoning == ""
    assert {r.split for r in rows} == {"train", "heldout"}


def _write(tmp_path, objs):
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(o if isinstance(o, str) else json.dumps(o) for o in objs) + "\n")
    return path


GOOD = {"id": "a", "kind": "fixit", "split": "train", "verified": True,
        "messages": [{"role": "user", "content": "x", "loss": False},
                     {"role": "assistant", "content": "y", "loss": True}], "provenance": {}}


@pytest.mark.parametrize("change, message", [
    ({"kind": "other"}, ":2: kind: 'other' is not one of fixit, kernelgen"),
    ({"split": "test"}, ":2: split: 'test' is not one of train, heldout"),
    ({"verified": "yes"}, ":2: verified: expected bool, got str"),
    ({"messages": []}, ":2: messages: empty"),
    ({"messages": [{"role": "user", "content": "x", "loss": False}]}, ":2: messages: no message has loss true"),
    ({"messages": [{"role": "tool", "content": "x", "loss": True}]}, ":2: messages[0]: role: 'tool' is not one of"),
    ({"messages": [{"role": "user", "content": "x", "loss": 1}]}, ":2: messages[0]: loss: expected bool, got int"),
    ({"id": 3}, ":2: id: expected str, got int"),
])
def test_bad_rows_name_file_line_and_field(tmp_path, change, message):
    path = _write(tmp_path, [GOOD, {**GOOD, "id": "b", **change}])
    with pytest.raises(RowError) as err:
        read_rows(path)
    assert f"{path}{message}" in str(err.value)


def test_missing_field_duplicate_id_and_bad_json(tmp_path):
    missing = {k: v for k, v in GOOD.items() if k != "split"}
    with pytest.raises(RowError, match=r":1: split: missing"):
        read_rows(_write(tmp_path, [missing]))
    with pytest.raises(RowError, match=r":2: id: 'a' appears twice"):
        read_rows(_write(tmp_path, [GOOD, GOOD]))
    with pytest.raises(RowError, match=r":1: row: not JSON"):
        read_rows(_write(tmp_path, ["{not json"]))
    with pytest.raises(RowError, match="cannot read"):
        read_rows(tmp_path / "absent.jsonl")


def test_data_hash_changes_with_the_bytes(tmp_path):
    a = _write(tmp_path, [GOOD])
    first = files_hash([a])
    a.write_text(a.read_text() + "\n")
    assert files_hash([a]) != first and len(first) == 64
