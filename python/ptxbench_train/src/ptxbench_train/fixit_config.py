"""The `ptxbench fixit all` config of the loop: the user's config (teacher, recipes, filters)
pointed at the loop's base run and Fixit folder, and the folder its export writes into."""

from __future__ import annotations

from pathlib import Path

import yaml


class FixitConfigError(ValueError):
    pass


def loop_config(user_config: str | None, folder: Path, runs: list[Path], gpu: bool,
                include_unverified: bool) -> dict:
    config: dict = {}
    if user_config:
        path = Path(user_config)
        try:
            config = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except OSError as err:
            raise FixitConfigError(f"{path}: cannot read: {err.strerror}") from err
        if not isinstance(config, dict):
            raise FixitConfigError(f"{path}: config: expected a mapping")
        base = path.parent.resolve()
        for key in ("tasks_dir", "solutions"):  # paths stay relative to the user's file
            if key in config:
                config[key] = str((base / config[key]).resolve())
        for who in ("teacher", "explainer"):
            entry = config.get(who)
            if isinstance(entry, dict) and "config" in entry:
                entry["config"] = str((base / entry["config"]).resolve())
    config["fixit"] = str(folder.resolve())
    config["runs"] = [str(r.resolve()) for r in runs]
    config.setdefault("gpu", gpu)
    exporting = config.setdefault("export", {})
    exporting.setdefault("include_unverified", include_unverified)
    exporting.setdefault("kernelgen", True)
    return config


def export_files(config: dict) -> list[Path]:
    """The first recipe's export folder, export/<recipe>/ (its variants are
    <length>-<explainer>/ folders of <split>/<kind>.jsonl files, docs/fixit.md)."""
    recipes = config.get("recipes") or [{"name": "volume"}]
    name = recipes[0].get("name", "volume") if isinstance(recipes[0], dict) else "volume"
    return [Path(config["fixit"]) / "export" / name]


def write_loop_config(user_config: str | None, folder: Path, runs: list[Path], out: Path,
                      gpu: bool, include_unverified: bool) -> list[Path]:
    config = loop_config(user_config, folder, runs, gpu, include_unverified)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(yaml.safe_dump(config, sort_keys=False))
    return export_files(config)
