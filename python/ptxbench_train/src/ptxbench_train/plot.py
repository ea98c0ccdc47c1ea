"""The loss curve of a training run: train loss per logged step, held-out loss per evaluation."""

from __future__ import annotations

from pathlib import Path


def loss_curve(history: list[dict], out: Path, title: str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    train = [(e["step"], e["loss"]) for e in history if "loss" in e and "step" in e]
    heldout = [(e["step"], e["eval_loss"]) for e in history if "eval_loss" in e and "step" in e]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=120)
    if train:
        ax.plot(*zip(*train), label="train loss", color="#1f77b4", linewidth=1.2)
    if heldout:
        ax.plot(*zip(*heldout), label="held-out loss", color="#d62728", marker="o", linewidth=1.2)
    ax.set_xlabel("optimiser step")
    ax.set_ylabel("cross-entropy (loss tokens only)")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return out
