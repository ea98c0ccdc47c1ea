from conftest import ROWS

from ptxbench_train.masking import IGNORE_INDEX, TemplateError, loss_spans, prepare, tokenise_row
from ptxbench_train.rows import read_rows


def _labelled_text(tokenizer, tokenised):
    return tokenizer.decode([t for t in tokenised.labels if t != IGNORE_INDEX])


def test_fixit_row_learns_only_the_last_assistant_message(tokenizer):
    row = read_rows(ROWS)[0]
    tokenised = tokenise_row(tokenizer, row)
    assert len(tokenised.input_ids) == len(tokenised.labels)
    # Exactly the fix, its end-of-turn token and newline; not the role header, not the failing reply.
    assert _labelled_text(tokenizer, tokenised) == row.messages[4].content + "<|im_end|>\n"
    assert "first try" not in _labelled_text(tokenizer, tokenised)
    # The labelled tokens are one contiguous run at the end.
    first = next(i for i, t in enumerate(tokenised.labels) if t != IGNORE_INDEX)
    assert all(t != IGNORE_INDEX for t in tokenised.labels[first:])
    assert tokenizer.decode(tokenised.input_ids[:first]).endswith("<|im_start|>assistant\n")


def test_two_loss_messages_give_two_spans(tokenizer):
    row = read_rows(ROWS)[0]
    from dataclasses import replace

    messages = list(row.messages)
    messages[2] = replace(messages[2], loss=True)
    text, spans = loss_spans(tokenizer, replace(row, messages=tuple(messages)))
    assert len(spans) == 2
    assert text[spans[0][0]:spans[0][1]].startswith("```cuda\n// first try")
    assert text[spans[1][0]:spans[1][1]].startswith(row.messages[4].content)


def test_max_length_drops_rows_and_counts_them(tokenizer):
    rows = read_rows(ROWS)
    everything = prepare(tokenizer, rows, max_length=1 << 20)
    assert len(everything.rows) == len(rows) and not everything.too_long
    lengths = sorted(len(r.input_ids) for r in everything.rows)
    cut = lengths[len(lengths) // 2]
    some = prepare(tokenizer, rows, max_length=cut)
    assert len(some.rows) + len(some.too_long) == len(rows)
    assert some.too_long and all(len(r.input_ids) <= cut for r in some.rows)


class _ReorderingTemplate:
    """A template that renders a longer conversation differently from its prefix."""

    def __init__(self, tokenizer):
        self.inner = tokenizer

    def apply_chat_template(self, messages, tokenize, add_generation_prompt):
        return f"[{len(messages)}]" + self.inner.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=add_generation_prompt)


def test_template_that_breaks_prefixes_is_reported(tokenizer):
    row = read_rows(ROWS)[0]
    try:
        loss_spans(_ReorderingTemplate(tokenizer), row)
    except TemplateError as err:
        assert "fixit-0" in str(err)
    else:
        raise AssertionError("expected TemplateError")
