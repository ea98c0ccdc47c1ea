"""LoRA fine-tuning, serving and re-evaluation for ptxbench (docs/training.md)."""

__version__ = "0.1.0"
