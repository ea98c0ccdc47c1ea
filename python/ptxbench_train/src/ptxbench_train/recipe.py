"""Training recipes: YAML (or JSON) files of the fields below; unknown fields are errors."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import yaml


class RecipeError(ValueError):
    pass


@dataclass(frozen=True)
class Recipe:
    name: str
    lora_rank: int = 32
    lora_alpha: int = 32
    lora_dropout: float = 0.0
    target_modules: str | list[str] = "all-linear"
    learning_rate: float = 4.65e-4
    lr_scheduler: str = "linear"
    warmup_ratio: float = 0.0
    weight_decay: float = 0.0
    epochs: float = 5
    max_steps: int = -1  # > 0 stops after that many optimiser steps (measurements, smoke runs)
    batch_size: int = 2
    gradient_accumulation_steps: int = 1
    max_length: int = 65536
    bf16: bool = True  # used only where the GPU supports it
    gradient_checkpointing: bool = True
    save_strategy: str = "epoch"  # epoch, steps or no
    save_steps: int = 500
    save_total_limit: int = 2
    eval_strategy: str = "epoch"  # epoch, steps or no
    eval_steps: int = 500
    logging_steps: int = 1
    kinds: list[str] = field(default_factory=lambda: ["fixit", "kernelgen"])
    verified_only: bool = True
    # Where an assistant message's reasoning goes: auto (the template's thinking channel where it
    # has one, else before the content), thinking (an error without a channel), content.
    reasoning: str = "auto"
    seed: int = 0

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def builtin_recipes() -> list[str]:
    folder = resources.files("ptxbench_train") / "recipes"
    return sorted(p.name.rsplit(".", 1)[0] for p in folder.iterdir() if p.name.endswith(".yaml"))


def _fields_from(where: str, data: object) -> Recipe:
    if not isinstance(data, dict):
        raise RecipeError(f"{where}: recipe: expected a mapping")
    known = {f.name: f for f in dataclasses.fields(Recipe)}
    for key in data:
        if key not in known:
            raise RecipeError(f"{where}: {key}: unknown field")
    if "name" not in data:
        raise RecipeError(f"{where}: name: missing")
    for key, value in data.items():
        want = known[key].type
        numeric = {"int": int, "float": (int, float)}.get(want)
        if numeric and (isinstance(value, bool) or not isinstance(value, numeric)):
            raise RecipeError(f"{where}: {key}: expected {want}, got {value!r}")
        if want == "bool" and not isinstance(value, bool):
            raise RecipeError(f"{where}: {key}: expected true or false, got {value!r}")
    if data.get("reasoning", "auto") not in ("auto", "thinking", "content"):
        raise RecipeError(f"{where}: reasoning: expected auto, thinking or content")
    for key in ("save_strategy", "eval_strategy"):
        if data.get(key, "epoch") not in ("epoch", "steps", "no"):
            raise RecipeError(f"{where}: {key}: expected epoch, steps or no")
    return Recipe(**data)


def load_recipe(name_or_path: str) -> Recipe:
    """A built-in recipe by name (`reference`, `tiny`) or a YAML/JSON file."""
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml", ".json") or path.exists():
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as err:
            raise RecipeError(f"{path}: cannot read: {err.strerror}") from err
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
        return _fields_from(str(path), data)
    if name_or_path not in builtin_recipes():
        raise RecipeError(
            f"recipe: '{name_or_path}' is neither a file nor a built-in recipe "
            f"({', '.join(builtin_recipes())})"
        )
    text = (resources.files("ptxbench_train") / "recipes" / f"{name_or_path}.yaml").read_text()
    return _fields_from(f"recipes/{name_or_path}.yaml", yaml.safe_load(text))
