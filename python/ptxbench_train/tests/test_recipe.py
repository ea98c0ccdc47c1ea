import pytest

from ptxbench_train.cli import main
from ptxbench_train.recipe import RecipeError, builtin_recipes, load_recipe


def test_reference_recipe_is_the_published_one():
    r = load_recipe("reference")
    assert (r.lora_rank, r.learning_rate, r.lr_scheduler, r.epochs, r.batch_size, r.max_length) == (
        32, 4.65e-4, "linear", 5, 2, 65536)
    assert {"reference", "tiny", "smol"} <= set(builtin_recipes())
    smol = load_recipe("smol")
    assert smol.max_length == 32768 and smol.verified_only and smol.batch_size == 1


def test_recipe_files_and_errors(tmp_path):
    good = tmp_path / "mine.yaml"
    good.write_text("name: mine\nlora_rank: 4\nlearning_rate: 1.0e-3\n")
    assert load_recipe(str(good)).lora_rank == 4
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nrank: 4\n")
    with pytest.raises(RecipeError, match=r"bad.yaml: rank: unknown field"):
        load_recipe(str(bad))
    bad.write_text("name: bad\nepochs: many\n")
    with pytest.raises(RecipeError, match=r"epochs: expected float"):
        load_recipe(str(bad))
    with pytest.raises(RecipeError, match="neither a file nor a built-in recipe"):
        load_recipe("nonesuch")


def test_cli_bad_input_exits_2(tmp_path, capsys):
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"id": 1}\n')
    assert main(["check-rows", str(rows)]) == 2
    assert f"{rows}:1: messages: missing" in capsys.readouterr().err
    assert main(["train", "--base", str(tmp_path), "--data", str(rows), "--out", str(tmp_path / "o"),
                 "--recipe", "nonesuch"]) == 2
