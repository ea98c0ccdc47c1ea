"""Run configs for base and tuned, and the report command."""

import pytest
import yaml

from ptxbench_train.cli import main
from ptxbench_train.evaluate import GridError, Side, load_grid, report_argv, write_configs


def test_same_grid_for_both_sides(tmp_path):
    grid = tmp_path / "grid.yaml"
    grid.write_text("tasks: [core]\narchs: [hopper]\ncontexts: [none, isa]\nsamples: 3\n"
                    "tasks_dir: suite\n")
    configs = write_configs(load_grid(grid), [Side("base", "qwen"), Side("tuned", "qwen-fixit")],
                            "http://127.0.0.1:8000/v1", tmp_path / "work", {"max_tokens": 64})
    base, tuned = (yaml.safe_load(configs[s].read_text()) for s in ("base", "tuned"))
    for side, config in (("base", base), ("tuned", tuned)):
        assert config["out"] == str((tmp_path / "work" / "runs" / side).resolve())
        assert config["tasks_dir"] == str((tmp_path / "suite").resolve())
        assert config["contexts"] == ["none", "isa"] and config["samples"] == 3
        (model,) = config["models"]
        assert model["provider"] == "openai" and model["base_url"] == "http://127.0.0.1:8000/v1"
        assert model["api_key_env"] == "" and model["max_tokens"] == 64
    assert base["models"][0]["model"] == "qwen" and tuned["models"][0]["model"] == "qwen-fixit"
    assert {k: v for k, v in base.items() if k not in ("out", "models")} == {
        k: v for k, v in tuned.items() if k not in ("out", "models")}


def test_report_compares_the_runs(tmp_path):
    argv = report_argv("ptxbench", tmp_path, ["base", "tuned"])
    assert argv[:4] == ["ptxbench", "report", f"base={tmp_path}/runs/base", f"tuned={tmp_path}/runs/tuned"]
    assert argv[argv.index("--compare") + 1] == "run=base:tuned"
    assert argv[argv.index("--out") + 1] == str(tmp_path / "report")


def test_grid_with_models_is_refused(tmp_path, capsys):
    grid = tmp_path / "grid.yaml"
    grid.write_text("tasks: [core]\nmodels: []\n")
    with pytest.raises(GridError, match="models: not a grid field"):
        load_grid(grid)
    assert main(["evaluate", "--base-url", "u", "--grid", str(grid), "--work", str(tmp_path),
                 "--side", "base=b", "--configs-only"]) == 2
    assert main(["evaluate", "--base-url", "u", "--grid", str(grid), "--work", str(tmp_path),
                 "--side", "nolabel"]) == 2
    assert "expected LABEL=SERVED_MODEL_NAME" in capsys.readouterr().err
    # Other fields are run.yaml's: `ptxbench run` checks them, with its own list.
    grid.write_text("tasks: [core]\ncells: []\n")
    assert load_grid(grid)["cells"] == []
