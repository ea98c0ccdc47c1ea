"""Reasoning rows through real chat-template shapes: the explanation lands in the template's own
thinking channel (a reasoning_content field, or <think> tags) and carries loss there, or before
the content where the template has no channel; asking for a channel that does not exist fails."""

from __future__ import annotations

import json

import pytest
from transformers import AutoTokenizer

from chat_templates import CHANNEL_STYLE, LLAMA3_STYLE, QWEN3_STYLE, R1_STYLE
from ptxbench_train import reasoning
from ptxbench_train.masking import IGNORE_INDEX, prepare, tokenise_row
from ptxbench_train.rows import parse_row

THOUGHT = "I traced the barrier phase: the wait used the wrong parity after the first stage."
CODE = "```cuda\n__global__ void k() {}\n```"


def row():
    return parse_row(
        {
            "id": "r1",
            "kind": "fixit",
            "split": "train",
            "verified": True,
            "messages": [
                {"role": "system", "content": "You write kernels.", "loss": False, "reasoning": ""},
                {"role": "user", "content": "Write a GEMM.", "loss": False, "reasoning": ""},
                {"role": "assistant", "content": "broken kernel", "loss": False, "reasoning": ""},
                {"role": "user", "content": "It hangs.", "loss": False, "reasoning": ""},
                {"role": "assistant", "content": CODE, "loss": True, "reasoning": THOUGHT},
            ],
        },
        "test",
    )


@pytest.fixture
def with_template(tiny_model):
    def make(template: str):
        tokenizer = AutoTokenizer.from_pretrained(str(tiny_model), local_files_only=True)
        tokenizer.chat_template = template
        return tokenizer

    return make


@pytest.mark.parametrize(
    "template, style, before_thought",
    [
        (QWEN3_STYLE, "field", "<|im_start|>assistant\n<think>\n"),
        (CHANNEL_STYLE, "field", "<|channel|>analysis<|message|>"),
        (R1_STYLE, "tags", "<|Assistant|><think>\n"),
        (LLAMA3_STYLE, "none", "<|start_header_id|>assistant<|end_header_id|>\n\n"),
    ],
    ids=["qwen3-think", "reasoning-content-channel", "r1-think-tags", "llama3-no-channel"],
)
def test_reasoning_goes_where_the_template_puts_it_and_carries_loss(with_template, template, style,
                                                                    before_thought):
    tokenizer = with_template(template)
    assert reasoning.template_style(tokenizer) == style
    mode = reasoning.resolve("auto", style)
    tokenised = tokenise_row(tokenizer, row(), mode)
    text = tokenizer.decode(tokenised.input_ids)
    assert text.count(THOUGHT) == 1, text
    assert before_thought + THOUGHT in text, text
    assert text.index(THOUGHT) < text.index("__global__"), "reasoning after the code"
    trained = tokenizer.decode([t for t, label in zip(tokenised.input_ids, tokenised.labels)
                                if label != IGNORE_INDEX])
    context = tokenizer.decode([t for t, label in zip(tokenised.input_ids, tokenised.labels)
                                if label == IGNORE_INDEX])
    assert "wrong parity after the first stage" in trained and "__global__" in trained, trained
    assert "wrong parity" not in context and "It hangs." in context and "broken kernel" in context


def test_thinking_asked_of_a_template_without_a_channel_fails(with_template):
    tokenizer = with_template(LLAMA3_STYLE)
    with pytest.raises(reasoning.ReasoningError, match="no thinking channel"):
        prepare(tokenizer, [row()], max_length=4096, placement="thinking")
    prepared = prepare(with_template(QWEN3_STYLE), [row()], max_length=4096, placement="thinking")
    assert prepared.reasoning_mode == "field" and len(prepared.rows) == 1


def test_content_placement_keeps_reasoning_out_of_the_channel(with_template):
    tokenizer = with_template(QWEN3_STYLE)
    text = tokenizer.decode(tokenise_row(tokenizer, row(), "content").input_ids)
    assert "<think>\n\n</think>\n\n" + THOUGHT + "\n\n" + CODE in text, text


def test_rows_without_reasoning_read_as_empty_and_bad_types_are_named(tmp_path):
    plain = {"id": "a", "kind": "kernelgen", "split": "train", "verified": False,
             "messages": [{"role": "user", "content": "q", "loss": False},
                          {"role": "assistant", "content": "a", "loss": True}]}
    assert parse_row(plain, "x").messages[1].reasoning == ""
    plain["messages"][1]["reasoning"] = 3
    with pytest.raises(ValueError, match=r"x: messages\[1\]: reasoning: expected str"):
        parse_row(json.loads(json.dumps(plain)), "x")
