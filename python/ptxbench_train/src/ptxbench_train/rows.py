"""Training rows: JSON Lines written by `ptxbench fixit export`, one conversation per line.

{"id": str, "kind": "fixit"|"kernelgen", "split": "train"|"heldout", "verified": bool,
 "messages": [{"role": "system"|"user"|"assistant", "content": str, "loss": bool,
               "reasoning": str (optional; the thinking before the content, "" for none)}, ...],
 "provenance": {...}}
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

KINDS = ("fixit", "kernelgen")
SPLITS = ("train", "heldout")
ROLES = ("system", "user", "assistant")


class RowError(ValueError):
    """Bad input: `file:line: field: problem`."""


@dataclass(frozen=True)
class Message:
    role: str
    content: str
    loss: bool
    reasoning: str = ""


@dataclass(frozen=True)
class Row:
    id: str
    kind: str
    split: str
    verified: bool
    messages: tuple[Message, ...]
    provenance: dict = field(default_factory=dict)


def _require(where: str, obj: dict, name: str, kind: type):
    if name not in obj:
        raise RowError(f"{where}: {name}: missing")
    value = obj[name]
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise RowError(f"{where}: {name}: expected {kind.__name__}, got {type(value).__name__}")
    return value


def _one_of(where: str, name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise RowError(f"{where}: {name}: '{value}' is not one of {', '.join(allowed)}")
    return value


def parse_row(obj: object, where: str) -> Row:
    if not isinstance(obj, dict):
        raise RowError(f"{where}: row: expected a JSON object")
    messages_json = _require(where, obj, "messages", list)
    if not messages_json:
        raise RowError(f"{where}: messages: empty")
    messages = []
    for i, m in enumerate(messages_json):
        at = f"{where}: messages[{i}]"
        if not isinstance(m, dict):
            raise RowError(f"{at}: expected a JSON object")
        role = _one_of(at, "role", _require(at, m, "role", str), ROLES)
        reasoning = _require(at, m, "reasoning", str) if "reasoning" in m else ""
        messages.append(
            Message(role, _require(at, m, "content", str), _require(at, m, "loss", bool), reasoning)
        )
    if not any(m.loss for m in messages):
        raise RowError(f"{where}: messages: no message has loss true")
    provenance = obj.get("provenance", {})
    if not isinstance(provenance, dict):
        raise RowError(f"{where}: provenance: expected a JSON object")
    return Row(
        id=_require(where, obj, "id", str),
        kind=_one_of(where, "kind", _require(where, obj, "kind", str), KINDS),
        split=_one_of(where, "split", _require(where, obj, "split", str), SPLITS),
        verified=_require(where, obj, "verified", bool),
        messages=tuple(messages),
        provenance=provenance,
    )


def read_rows(path: str | Path) -> list[Row]:
    """Every row of a file; the first bad line raises RowError naming file and line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise RowError(f"{path}: cannot read: {err.strerror}") from err
    rows, seen = [], set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            raise RowError(f"{where}: row: not JSON ({err.msg})") from err
        row = parse_row(obj, where)
        if row.id in seen:
            raise RowError(f"{where}: id: '{row.id}' appears twice")
        seen.add(row.id)
        rows.append(row)
    return rows


def expand_data(paths: list[str | Path]) -> list[Path]:
    """Row files: a file as given; an export folder (`ptxbench fixit export`) as its split
    files, <split>/<kind>.jsonl in name order."""
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(p.glob("*/*.jsonl"))
            if not found:
                raise RowError(f"{p}: no <split>/<kind>.jsonl row files in this folder")
            out.extend(found)
        else:
            out.append(p)
    return out


def files_hash(paths: list[str | Path]) -> str:
    """sha256 over the files' bytes, in the order given: the data hash of a run card."""
    digest = hashlib.sha256()
    for p in paths:
        digest.update(Path(p).read_bytes())
    return digest.hexdigest()
