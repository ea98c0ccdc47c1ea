"""Where an assistant message's reasoning goes when a row is rendered for training.

A reasoning model learns its reasoning in its thinking channel, written the way its own chat
template writes it: a template that renders a message's `reasoning_content` field (Qwen3,
gpt-oss-like channels) gets the field; one that only knows `<think>` tags inside the content
(DeepSeek-R1-like) gets the tags; a template with no thinking channel (Llama 3, the tiny
model's ChatML) gets the reasoning before the content, as plain text. Which one a template has
is found by rendering a probe, not by the model's name.
"""

from __future__ import annotations

from .rows import Row

PLACEMENTS = ("auto", "thinking", "content")
_PROBE = "ptxbench-reasoning-probe"


class ReasoningError(ValueError):
    """A recipe asks for the thinking channel of a template that has none."""


def _render(tokenizer, messages: list[dict]) -> str:
    return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=False)


def tagged(reasoning: str, content: str) -> str:
    return f"<think>\n{reasoning}\n</think>\n\n{content}"


def template_style(tokenizer) -> str:
    """"field": the template renders `reasoning_content`; "tags": it renders `<think>` tags in
    the last reply's content; "none": neither (a probe's reasoning does not appear)."""
    question = {"role": "user", "content": "q"}
    field = [question, {"role": "assistant", "content": "a", "reasoning_content": _PROBE}]
    if _PROBE in _render(tokenizer, field):
        return "field"
    source = tokenizer.chat_template if isinstance(tokenizer.chat_template, str) else ""
    tags = [question, {"role": "assistant", "content": tagged(_PROBE, "a")}]
    if "<think>" in source and _PROBE in _render(tokenizer, tags):
        return "tags"
    return "none"


def resolve(placement: str, style: str) -> str:
    """The rendering used: "field", "tags" or "content"."""
    if placement not in PLACEMENTS:
        raise ReasoningError(f"reasoning: '{placement}' is not one of {', '.join(PLACEMENTS)}")
    if placement == "content":
        return "content"
    if style == "none":
        if placement == "thinking":
            raise ReasoningError(
                "reasoning: thinking: the chat template has no thinking channel (it renders "
                "neither a reasoning_content field nor <think> tags); use auto or content"
            )
        return "content"
    return style


def chat(row: Row, mode: str) -> list[dict]:
    """The conversation as the chat template takes it, each message's reasoning placed by mode."""
    out = []
    for m in row.messages:
        message = {"role": m.role, "content": m.content}
        if m.reasoning:
            if mode == "field":
                message["reasoning_content"] = m.reasoning
            elif mode == "tags":
                message["content"] = tagged(m.reasoning, m.content)
            else:
                message["content"] = f"{m.reasoning}\n\n{m.content}"
        out.append(message)
    return out
