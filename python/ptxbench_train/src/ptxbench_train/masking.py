"""Tokenise a conversation with the model's own chat template and mark the tokens that carry loss.

Each message's character span in the rendered conversation is found by rendering the
conversation prefix by prefix: message i starts where the render of messages[:i] (with the
generation prompt, for an assistant message, so the role header is not learnt) ends, and ends
where the render of messages[:i+1] ends. Tokens are assigned to spans by their character offsets,
so merges across a message boundary cannot shift a span.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import reasoning
from .rows import Row

IGNORE_INDEX = -100


class TemplateError(ValueError):
    """The chat template does not render a conversation's prefixes as prefixes of the whole."""


@dataclass(frozen=True)
class TokenisedRow:
    id: str
    input_ids: list[int]
    labels: list[int]

    @property
    def loss_tokens(self) -> int:
        return sum(1 for label in self.labels if label != IGNORE_INDEX)


def _render(tokenizer, messages: list[dict], generation_prompt: bool) -> str:
    if not messages:
        return ""
    return tokenizer.apply_chat_template(
        messages, tokenize=False, add_generation_prompt=generation_prompt
    )


def loss_spans(tokenizer, row: Row, mode: str = "content") -> tuple[str, list[tuple[int, int]]]:
    """The rendered conversation and the character spans of its loss messages (mode: where the
    reasoning goes, `reasoning.resolve`)."""
    chat = reasoning.chat(row, mode)
    full = _render(tokenizer, chat, generation_prompt=False)
    spans = []
    for i, message in enumerate(row.messages):
        if not message.loss:
            continue
        before = _render(tokenizer, chat[:i], generation_prompt=message.role == "assistant")
        through = _render(tokenizer, chat[: i + 1], generation_prompt=False)
        if not full.startswith(before) or not full.startswith(through) or len(before) > len(through):
            raise TemplateError(
                f"row {row.id}: message {i}: the chat template renders this prefix differently "
                "from the whole conversation"
            )
        spans.append((len(before), len(through)))
    return full, spans


def tokenise_row(tokenizer, row: Row, mode: str = "content") -> TokenisedRow:
    text, spans = loss_spans(tokenizer, row, mode)
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    input_ids = list(encoded["input_ids"])
    labels = []
    for token_id, (start, end) in zip(input_ids, encoded["offset_mapping"]):
        inside = end > start and any(lo <= start < hi for lo, hi in spans)
        labels.append(token_id if inside else IGNORE_INDEX)
    return TokenisedRow(row.id, input_ids, labels)


@dataclass
class Prepared:
    """Rows ready for training, with what was left out and why."""

    rows: list[TokenisedRow]
    too_long: list[str]
    no_loss_tokens: list[str]
    bad_template: list[str]
    reasoning_mode: str = "content"  # where reasoning went: field, tags or content

    @property
    def tokens(self) -> int:
        return sum(len(r.input_ids) for r in self.rows)


def prepare(tokenizer, rows: list[Row], max_length: int, placement: str = "auto") -> Prepared:
    """Tokenise rows and drop those over max_length (never truncated: a cut reply teaches junk).
    placement: where reasoning goes (`reasoning.PLACEMENTS`); ReasoningError when "thinking" is
    asked of a template without a thinking channel."""
    mode = reasoning.resolve(placement, reasoning.template_style(tokenizer))
    out = Prepared([], [], [], [], mode)
    for row in rows:
        try:
            tokenised = tokenise_row(tokenizer, row, mode)
        except TemplateError:
            out.bad_template.append(row.id)
            continue
        if len(tokenised.input_ids) > max_length:
            out.too_long.append(row.id)
        elif tokenised.loss_tokens == 0:
            out.no_loss_tokens.append(row.id)
        else:
            out.rows.append(tokenised)
    return out
