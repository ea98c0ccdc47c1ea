"""Shared fixtures: a tiny random model folder built once per session (no downloads)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

DATA = HERE / "data"
ROWS = DATA / "rows.jsonl"


def corpus() -> list[str]:
    """Tokenizer corpus: the test rows' text, repeated."""
    return [line for line in ROWS.read_text().splitlines()] * 4


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    from ptxbench_train.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("model") / "tiny", size="tiny", corpus=corpus(),
                            max_positions=32768, vocab_size=1024)


@pytest.fixture(scope="session")
def tokenizer(tiny_model):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(tiny_model), local_files_only=True)
