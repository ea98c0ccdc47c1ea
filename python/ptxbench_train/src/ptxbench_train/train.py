"""LoRA SFT of a base model on exported rows, with TRL's SFTTrainer on pre-tokenised rows.

Writes into OUT: checkpoints/ (resumable), adapter/ (the final LoRA adapter and tokenizer),
log_history.json, loss.png, run_card.json and run_card.md. A run whose run_card.json exists is
finished and is not trained again.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .masking import IGNORE_INDEX, prepare
from .recipe import Recipe
from .rows import Row, RowError, expand_data, files_hash, read_rows


@dataclass(frozen=True)
class TrainRequest:
    base_model: str  # a local folder or a hub id
    data: list[str]
    out: Path
    recipe: Recipe
    revision: str | None = None
    force: bool = False


class PadCollator:
    """Pads input_ids with the pad token and labels with IGNORE_INDEX to the batch's longest."""

    def __init__(self, pad_token_id: int):
        self.pad_token_id = pad_token_id

    def __call__(self, features: list[dict]) -> dict:
        import torch

        longest = max(len(f["input_ids"]) for f in features)
        ids, labels, mask = [], [], []
        for f in features:
            pad = longest - len(f["input_ids"])
            ids.append(list(f["input_ids"]) + [self.pad_token_id] * pad)
            labels.append(list(f["labels"]) + [IGNORE_INDEX] * pad)
            mask.append([1] * len(f["input_ids"]) + [0] * pad)
        return {
            "input_ids": torch.tensor(ids, dtype=torch.long),
            "labels": torch.tensor(labels, dtype=torch.long),
            "attention_mask": torch.tensor(mask, dtype=torch.long),
        }


def select_rows(rows: list[Row], recipe: Recipe) -> tuple[list[Row], list[Row], dict]:
    kept = [r for r in rows if r.kind in recipe.kinds and (r.verified or not recipe.verified_only)]
    counts = {
        "rows": len(rows),
        "not_in_recipe_kinds": sum(1 for r in rows if r.kind not in recipe.kinds),
        "unverified_left_out": sum(
            1 for r in rows if r.kind in recipe.kinds and recipe.verified_only and not r.verified
        ),
    }
    return [r for r in kept if r.split == "train"], [r for r in kept if r.split == "heldout"], counts


def say_selection(counts: dict, train_set, heldout_set, recipe: Recipe) -> None:
    """Every row read is accounted for on stderr: trained on, evaluated on, or left out and why."""
    print(
        f"train: {counts['rows']} row(s) read: {len(train_set.rows)} train, "
        f"{len(heldout_set.rows)} held out (loss only, never trained on); reasoning: "
        f"{train_set.reasoning_mode}",
        file=sys.stderr,
    )
    left = {
        f"unverified (recipe {recipe.name}: verified_only)": counts["unverified_left_out"],
        f"of kinds outside {recipe.kinds}": counts["not_in_recipe_kinds"],
        f"over max_length {recipe.max_length} tokens": len(train_set.too_long) + len(heldout_set.too_long),
        "with no loss token": len(train_set.no_loss_tokens) + len(heldout_set.no_loss_tokens),
        "that the chat template renders inconsistently": len(train_set.bad_template)
        + len(heldout_set.bad_template),
    }
    for why, count in left.items():
        if count:
            print(f"train: left out {count} row(s) {why}", file=sys.stderr)


def _bf16_usable(recipe: Recipe) -> bool:
    import torch

    return recipe.bf16 and torch.cuda.is_available() and torch.cuda.is_bf16_supported()


def _load_base(request: TrainRequest):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    local = Path(request.base_model).is_dir()
    kwargs = {"revision": request.revision, "local_files_only": local}
    tokenizer = AutoTokenizer.from_pretrained(request.base_model, **kwargs)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    dtype = torch.bfloat16 if _bf16_usable(request.recipe) else torch.float32
    model = AutoModelForCausalLM.from_pretrained(request.base_model, dtype=dtype, **kwargs)
    return model, tokenizer


def _sft_config(request: TrainRequest, has_eval: bool, bf16: bool):
    import torch
    from trl import SFTConfig

    r = request.recipe
    return SFTConfig(
        output_dir=str(request.out / "checkpoints"),
        num_train_epochs=r.epochs,
        max_steps=r.max_steps,
        per_device_train_batch_size=r.batch_size,
        per_device_eval_batch_size=r.batch_size,
        gradient_accumulation_steps=r.gradient_accumulation_steps,
        learning_rate=r.learning_rate,
        lr_scheduler_type=r.lr_scheduler,
        warmup_steps=float(r.warmup_ratio),  # a float below 1 is a share of the steps
        weight_decay=r.weight_decay,
        bf16=bf16,
        gradient_checkpointing=r.gradient_checkpointing,
        gradient_checkpointing_kwargs={"use_reentrant": False} if r.gradient_checkpointing else None,
        save_strategy=r.save_strategy,
        save_steps=r.save_steps,
        save_total_limit=r.save_total_limit,
        eval_strategy=r.eval_strategy if has_eval else "no",
        eval_steps=r.eval_steps,
        logging_steps=r.logging_steps,
        logging_first_step=True,
        seed=r.seed,
        report_to=[],
        max_length=r.max_length,
        dataset_kwargs={"skip_prepare_dataset": True},
        remove_unused_columns=False,
        disable_tqdm=True,
        dataloader_pin_memory=bf16,  # pinning needs a GPU (bf16 implies one)
        # Without a GPU, accelerate makes several launched processes one data-parallel group
        # (gloo) only when told it runs on the CPU; otherwise each would train alone on all rows.
        use_cpu=not torch.cuda.is_available(),
    )


def _lora_config(recipe: Recipe):
    from peft import LoraConfig

    return LoraConfig(
        r=recipe.lora_rank,
        lora_alpha=recipe.lora_alpha,
        lora_dropout=recipe.lora_dropout,
        target_modules=recipe.target_modules,
        task_type="CAUSAL_LM",
    )


def _dataset(tokenised):
    from datasets import Dataset

    return Dataset.from_list([{"input_ids": t.input_ids, "labels": t.labels} for t in tokenised])


def latest_checkpoint(out: Path) -> str | None:
    folder = out / "checkpoints"
    found = sorted(folder.glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[-1]))
    return str(found[-1]) if found else None


def train(request: TrainRequest) -> dict:
    """Train (or resume) and return the run card; a finished run returns its card unchanged."""
    from trl import SFTTrainer

    from . import plot, runcard

    card_path = request.out / "run_card.json"
    if card_path.exists() and not request.force:
        return json.loads(card_path.read_text())
    started = time.time()
    data = expand_data(request.data)
    rows = [row for path in data for row in read_rows(path)]
    train_rows, heldout_rows, counts = select_rows(rows, request.recipe)
    model, tokenizer = _load_base(request)
    train_set = prepare(tokenizer, train_rows, request.recipe.max_length, request.recipe.reasoning)
    heldout_set = prepare(tokenizer, heldout_rows, request.recipe.max_length, request.recipe.reasoning)
    say_selection(counts, train_set, heldout_set, request.recipe)
    if not train_set.rows:
        raise RowError(
            f"{', '.join(map(str, request.data))}: rows: no trainable train-split row "
            f"({counts['rows']} read, {len(train_set.too_long)} over max_length "
            f"{request.recipe.max_length}, {counts['unverified_left_out']} unverified left out; "
            "rows exported without a GPU are unverified: verify them on a GPU, or use a recipe "
            "with verified_only: false such as tiny)"
        )
    request.out.mkdir(parents=True, exist_ok=True)
    runcard.reset_peak_memory()
    bf16 = _bf16_usable(request.recipe)
    trainer = SFTTrainer(
        model=model,
        args=_sft_config(request, bool(heldout_set.rows), bf16),
        train_dataset=_dataset(train_set.rows),
        eval_dataset=_dataset(heldout_set.rows) if heldout_set.rows else None,
        processing_class=tokenizer,
        data_collator=PadCollator(tokenizer.pad_token_id),
        peft_config=_lora_config(request.recipe),
    )
    resume = latest_checkpoint(request.out)
    train_started = time.time()
    result = trainer.train(resume_from_checkpoint=resume)
    train_seconds = time.time() - train_started
    final_eval = trainer.evaluate() if heldout_set.rows else {}
    if not trainer.is_world_process_zero():
        return {}
    trainer.model.save_pretrained(request.out / "adapter")
    tokenizer.save_pretrained(request.out / "adapter")
    history = trainer.state.log_history
    (request.out / "log_history.json").write_text(json.dumps(history, indent=1) + "\n")
    plot.loss_curve(history, request.out / "loss.png", title=f"{request.recipe.name}: {request.base_model}")
    card = runcard.build(
        request=request,
        data_hash=files_hash(data),
        counts=counts,
        train_set=train_set,
        heldout_set=heldout_set,
        history=history,
        steps=trainer.state.global_step,
        resumed_from=resume,
        train_seconds=train_seconds,
        total_seconds=time.time() - started,
        final_eval=final_eval,
        train_metrics=result.metrics,
        bf16=bf16,
        model=trainer.model,
        processes=trainer.args.world_size,
    )
    runcard.write(card, request.out)
    return card

