"""A small causal LM with random weights and a tokenizer trained here, saved as a local model
folder: what tests and `--tiny` runs use instead of downloaded weights.

The tokenizer is a byte-level BPE trained on a corpus (the project's prompt texts, or any text
given), with ChatML special tokens and a ChatML chat template, so every code path — chat
template, loss masking, LoRA, serving — is the one a real model goes through.
"""

from __future__ import annotations

import json
from pathlib import Path

CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

# Sizes: "tiny" for CPU tests (~0.3 M parameters), "gpu" for H200 measurements (~0.6 B).
SIZES = {
    "tiny": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=2),
    "small": dict(hidden_size=256, intermediate_size=768, num_hidden_layers=4,
                  num_attention_heads=4, num_key_value_heads=2),
    "gpu": dict(hidden_size=1536, intermediate_size=4096, num_hidden_layers=24,
                num_attention_heads=12, num_key_value_heads=4),
}


def _default_corpus() -> list[str]:
    """Text to train the tokenizer on when none is given: code- and prose-like samples."""
    lines = [
        "You are an expert GPU kernel engineer. Write one CUDA file with inline PTX.",
        "#include <cuda.h>\n__global__ void kernel(float* out, const float* in, int n) {",
        "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[i];\n}",
        "asm volatile(\"wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 ...\");",
        "The kernel failed to compile: error: identifier \"x\" is undefined.",
        "Verdict: INCORRECT_NUMERICAL. max abs error 3.2e-1. Fix the indexing.",
        "```cuda\nvoid run(tvm::ffi::TensorView A, tvm::ffi::TensorView B) {}\n```",
    ]
    return lines * 20


def build_tokenizer(corpus: list[str], vocab_size: int = 2048):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    core.train_from_iterator(corpus, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        model_max_length=1 << 20,
    )
    tokenizer.chat_template = CHATML_TEMPLATE
    return tokenizer


def build_tiny_model(out_dir: str | Path, size: str = "tiny", corpus: list[str] | None = None,
                     max_positions: int = 32768, seed: int = 0, vocab_size: int = 2048,
                     initializer_range: float | None = None) -> Path:
    """Write a random-weight Qwen2-architecture model and its tokenizer to out_dir."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    if size not in SIZES:
        raise ValueError(f"size: '{size}' is not one of {', '.join(SIZES)}")
    if initializer_range is None:
        initializer_range = 0.1 if size == "tiny" else 0.02
    out_dir = Path(out_dir)
    tokenizer = build_tokenizer(corpus or _default_corpus(), vocab_size)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        max_position_embeddings=max_positions,
        tie_word_embeddings=True,
        # "tiny" is wider than the usual 0.02: with tied embeddings and a normalised last hidden
        # state its logits are bounded by the embedding norm, and LoRA (which leaves the
        # embedding alone) could barely lower the loss.
        initializer_range=initializer_range,
        bos_token_id=None,  # ChatML: no BOS token
        eos_token_id=tokenizer.convert_tokens_to_ids("<|im_end|>"),
        pad_token_id=tokenizer.convert_tokens_to_ids("<|endoftext|>"),
        **SIZES[size],
    )
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(config)
    model.generation_config.eos_token_id = config.eos_token_id
    model.generation_config.pad_token_id = config.pad_token_id
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    parameters = sum(p.numel() for p in model.parameters())
    (out_dir / "ptxbench_tiny.json").write_text(
        json.dumps({"size": size, "parameters": parameters, "seed": seed, "random_weights": True})
        + "\n"
    )
    return out_dir


def corpus_from_files(paths: list[str | Path]) -> list[str]:
    texts = []
    for p in paths:
        text = Path(p).read_text(encoding="utf-8", errors="replace")
        texts.extend(text[i : i + 2000] for i in range(0, len(text), 2000))
    return texts
