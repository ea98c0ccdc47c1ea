"""LoRA SFT of the tiny random model on the test rows, on the CPU: the loss falls, the adapter
saves and reloads, the run card and plot are written, and a killed run resumes."""

import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import ROWS

from ptxbench_train.cli import main
from ptxbench_train.recipe import load_recipe
from ptxbench_train.train import TrainRequest, train


@pytest.fixture(scope="module")
def trained(tiny_model, tmp_path_factory):
    out = tmp_path_factory.mktemp("train") / "run"
    card = train(TrainRequest(base_model=str(tiny_model), data=[str(ROWS)], out=out,
                              recipe=load_recipe("tiny")))
    return out, card


def _mean(values):
    return sum(values) / len(values)


def test_training_loss_goes_down(trained):
    out, card = trained
    history = json.loads((out / "log_history.json").read_text())
    losses = [e["loss"] for e in history if "loss" in e]
    steps_per_epoch = card["steps"] // card["recipe"]["epochs"]
    first, last = _mean(losses[:steps_per_epoch]), _mean(losses[-steps_per_epoch:])
    assert last < 0.8 * first, (first, last, losses)
    assert card["heldout_loss_final"] is not None
    evals = [e["eval_loss"] for e in history if "eval_loss" in e]
    assert len(evals) >= card["recipe"]["epochs"]


def test_run_card_and_plot(trained):
    out, card = trained
    on_disk = json.loads((out / "run_card.json").read_text())
    assert on_disk["data_sha256"] == card["data_sha256"] and len(card["data_sha256"]) == 64
    assert card["rows"]["train"] == 9 and card["rows"]["heldout"] == 3  # unverified rows kept (tiny recipe)
    assert card["recipe"]["name"] == "tiny" and card["steps"] > 0
    assert card["hardware"]["gpus"] == [] and card["hardware"]["host_peak_rss_gib"] > 0
    assert card["versions"]["trl"] and card["base_model_is_local_folder"]
    png = (out / "loss.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    assert "data sha256" in (out / "run_card.md").read_text()


def test_adapter_reloads_and_changes_the_model(trained, tiny_model, tokenizer):
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    out, _ = trained
    ids = tokenizer("```cuda\n__global__ void k(float* o)", return_tensors="pt")["input_ids"]
    base = AutoModelForCausalLM.from_pretrained(str(tiny_model), local_files_only=True)
    with torch.no_grad():
        base_logits = base(ids).logits
    tuned = PeftModel.from_pretrained(base, str(out / "adapter"))
    with torch.no_grad():
        tuned_logits = tuned(ids).logits
        again = PeftModel.from_pretrained(
            AutoModelForCausalLM.from_pretrained(str(tiny_model), local_files_only=True),
            str(out / "adapter"))(ids).logits
    assert not torch.allclose(base_logits, tuned_logits, atol=1e-4)
    assert torch.allclose(tuned_logits, again, atol=1e-5)


def test_finished_run_is_not_trained_again(trained, tiny_model):
    out, card = trained
    again = train(TrainRequest(base_model=str(tiny_model), data=[str(ROWS)], out=out,
                               recipe=load_recipe("tiny")))
    assert again == json.loads((out / "run_card.json").read_text())


def test_checkpoints_and_resume(tiny_model, tmp_path):
    recipe = replace(load_recipe("tiny"), save_strategy="steps", save_steps=2, max_steps=4,
                     eval_strategy="no")
    out = tmp_path / "run"
    first = train(TrainRequest(base_model=str(tiny_model), data=[str(ROWS)], out=out, recipe=recipe))
    assert first["steps"] == 4 and (out / "checkpoints" / "checkpoint-4").is_dir()
    (out / "run_card.json").unlink()  # as if killed after the last checkpoint
    longer = replace(recipe, max_steps=6)
    resumed = train(TrainRequest(base_model=str(tiny_model), data=[str(ROWS)], out=out, recipe=longer))
    assert resumed["resumed_from"].endswith("checkpoint-4")
    assert resumed["steps"] == 6
    assert Path(resumed["adapter"], "adapter_config.json").exists()


def test_an_export_folder_trains_and_every_row_is_accounted_for(tiny_model, tmp_path, capsys):
    # The layout `ptxbench fixit export` writes: <split>/<kind>.jsonl.
    rows = [json.loads(line) for line in ROWS.read_text().splitlines()]
    folder = tmp_path / "export"
    for split in ("train", "heldout"):
        for kind in ("fixit", "kernelgen"):
            (folder / split).mkdir(parents=True, exist_ok=True)
            (folder / split / f"{kind}.jsonl").write_text(
                "".join(json.dumps(r) + "\n" for r in rows if r["split"] == split and r["kind"] == kind))
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text("name: tiny\nlora_rank: 8\nmax_steps: 1\nbatch_size: 2\nmax_length: 4096\n"
                      "bf16: false\ngradient_checkpointing: false\nsave_strategy: \"no\"\n"
                      "eval_strategy: \"no\"\nverified_only: true\n")
    # Through the command line, as docs/training.md has a newcomer run it.
    assert main(["train", "--base", str(tiny_model), "--data", str(folder), "--recipe", str(recipe),
                 "--out", str(tmp_path / "run")]) == 0
    card = json.loads((tmp_path / "run" / "run_card.json").read_text())
    err = capsys.readouterr().err
    assert "train: 12 row(s) read: 7 train, 3 held out" in err, err
    assert "train: left out 2 row(s) unverified (recipe tiny: verified_only)" in err, err
    assert card["rows"]["train"] == 7 and card["reasoning"] == "content"  # ChatML: no channel
    assert len(card["data"]) == 1 and card["data_sha256"]


def test_no_trainable_row_says_why(tiny_model, tmp_path):
    unverified = tmp_path / "rows.jsonl"
    unverified.write_text("".join(
        json.dumps({**json.loads(line), "verified": False}) + "\n" for line in ROWS.read_text().splitlines()))
    with pytest.raises(ValueError, match=r"12 unverified left out; rows exported without a GPU"):
        train(TrainRequest(base_model=str(tiny_model), data=[str(unverified)], out=tmp_path / "run",
                           recipe=load_recipe("reference")))
