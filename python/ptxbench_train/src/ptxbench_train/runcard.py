"""The run card: what was trained, on what, with which recipe, how long and on which hardware."""

from __future__ import annotations

import json
import os
import platform
import resource
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path


def reset_peak_memory() -> None:
    import torch

    if torch.cuda.is_available():
        for device in range(torch.cuda.device_count()):
            torch.cuda.reset_peak_memory_stats(device)


def hardware() -> dict:
    import torch

    host_peak_gib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1 << 20)
    info = {"host": platform.node(), "cpu_count": _cpu_count(), "host_peak_rss_gib": round(host_peak_gib, 3)}
    if torch.cuda.is_available():
        devices = range(torch.cuda.device_count())
        info["gpus"] = [torch.cuda.get_device_name(d) for d in devices]
        info["gpu_peak_allocated_gib"] = [
            round(torch.cuda.max_memory_allocated(d) / (1 << 30), 3) for d in devices
        ]
        info["gpu_peak_reserved_gib"] = [
            round(torch.cuda.max_memory_reserved(d) / (1 << 30), 3) for d in devices
        ]
    else:
        info["gpus"] = []
    # Trained as a Slurm job step (launcher slurm): which job, for the cluster's own records.
    if "SLURM_JOB_ID" in os.environ:
        info["slurm"] = {"job_id": os.environ["SLURM_JOB_ID"],
                         "step_id": os.environ.get("SLURM_STEP_ID"),
                         "node": os.environ.get("SLURMD_NODENAME")}
    return info


def _cpu_count() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def versions() -> dict:
    names = ["torch", "transformers", "peft", "trl", "datasets", "accelerate", "tokenizers"]
    out = {"python": platform.python_version()}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def base_revision(base_model: str, revision: str | None, model) -> str | None:
    """The revision asked for, else the hub commit the weights came from (None for a folder)."""
    if revision:
        return revision
    return getattr(model.config, "_commit_hash", None) if not Path(base_model).is_dir() else None


def _losses(history: list[dict], key: str) -> list[float]:
    return [entry[key] for entry in history if key in entry]


def build(*, request, data_hash, counts, train_set, heldout_set, history, steps, resumed_from,
          train_seconds, total_seconds, final_eval, train_metrics, bf16, model, processes=1) -> dict:
    train_losses = _losses(history, "loss")
    eval_losses = _losses(history, "eval_loss")
    tokens = train_set.tokens
    # Tokens through the model in training (TRL logs the running count). A resumed run's rate
    # would mix two processes' times: none is given.
    counts_seen = [e["num_tokens"] for e in history if "num_tokens" in e and "eval_loss" not in e]
    seen = int(counts_seen[-1]) if counts_seen and not resumed_from else None
    return {
        "format": "ptxbench-train-run-card/1",
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "base_model": request.base_model,
        "base_model_is_local_folder": Path(request.base_model).is_dir(),
        "base_revision": base_revision(request.base_model, request.revision, model),
        "data": [str(p) for p in request.data],
        "data_sha256": data_hash,
        "rows": {
            **counts,
            "train": len(train_set.rows),
            "heldout": len(heldout_set.rows),
            "over_max_length": train_set.too_long + heldout_set.too_long,
            "no_loss_tokens": train_set.no_loss_tokens + heldout_set.no_loss_tokens,
            "template_mismatch": train_set.bad_template + heldout_set.bad_template,
            "train_tokens": tokens,
            "train_loss_tokens": sum(r.loss_tokens for r in train_set.rows),
        },
        "recipe": request.recipe.to_dict(),
        "reasoning": train_set.reasoning_mode,
        "precision": "bf16" if bf16 else "fp32",
        "steps": steps,
        "processes": processes,  # data-parallel training processes (accelerate launch)
        "resumed_from": resumed_from,
        "train_seconds": round(train_seconds, 3),
        "total_seconds": round(total_seconds, 3),
        "tokens_seen": seen,
        "train_tokens_per_second": round(seen / train_seconds, 1) if seen and train_seconds > 0 else None,
        "train_loss_first": train_losses[0] if train_losses else None,
        "train_loss_last": train_losses[-1] if train_losses else None,
        "heldout_loss_first": eval_losses[0] if eval_losses else None,
        "heldout_loss_final": final_eval.get("eval_loss"),
        "train_metrics": train_metrics,
        "trainable_parameters": sum(p.numel() for p in model.parameters() if p.requires_grad),
        "hardware": hardware(),
        "versions": versions(),
        "adapter": str(request.out / "adapter"),
        "loss_plot": str(request.out / "loss.png"),
    }


def write(card: dict, out: Path) -> None:
    tmp = out / "run_card.json.tmp"
    tmp.write_text(json.dumps(card, indent=2) + "\n")
    (out / "run_card.md").write_text(markdown(card))
    tmp.replace(out / "run_card.json")  # last: its presence marks the run finished


def markdown(card: dict) -> str:
    hw = card["hardware"]
    gpus = ", ".join(hw["gpus"]) or "none (CPU)"
    peak = hw.get("gpu_peak_allocated_gib")
    lines = [
        f"# Run card: {card['recipe']['name']} on {card['base_model']}",
        "",
        "| | |",
        "|---|---|",
        f"| base model | `{card['base_model']}` (revision {card['base_revision'] or 'local folder'}) |",
        f"| data | {', '.join(card['data'])} |",
        f"| data sha256 | `{card['data_sha256']}` |",
        f"| rows | {card['rows']['train']} train, {card['rows']['heldout']} held-out "
        f"({len(card['rows']['over_max_length'])} over max length) |",
        f"| tokens | {card['rows']['train_tokens']} ({card['rows']['train_loss_tokens']} with loss) |",
        f"| steps | {card['steps']} |",
        f"| training processes | {card.get('processes', 1)} |",
        f"| time | {card['train_seconds']} s training, {card['total_seconds']} s in all |",
        f"| train loss | {card['train_loss_first']} → {card['train_loss_last']} |",
        f"| held-out loss | {card['heldout_loss_first']} → {card['heldout_loss_final']} |",
        f"| precision | {card['precision']} |",
        f"| GPU | {gpus} |",
        f"| peak GPU memory | {peak if peak else 'n/a'} GiB |",
        f"| peak host memory | {hw['host_peak_rss_gib']} GiB |",
        f"| versions | {', '.join(f'{k} {v}' for k, v in card['versions'].items())} |",
        "",
        "Recipe:",
        "",
        "```json",
        json.dumps(card["recipe"], indent=2),
        "```",
        "",
        "![loss](loss.png)",
        "",
    ]
    return "\n".join(lines)
