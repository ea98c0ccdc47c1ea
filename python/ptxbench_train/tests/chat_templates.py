"""Chat templates of the three kinds a reasoning row meets, as template strings (no download),
each written to behave as its family's published template does for plain text turns:

- QWEN3_STYLE: ChatML turns; a reply's reasoning comes from its `reasoning_content` field or from
  `<think>...</think>` in its content, and is rendered in `<think>` tags only for replies after
  the last user message (earlier replies lose it), as Qwen3's template does.
- LLAMA3_STYLE: header-delimited turns with no thinking channel (Llama 3.x).
- CHANNEL_STYLE: a separate analysis channel filled from `reasoning_content` (gpt-oss-like
  harmony channels).
- R1_STYLE: no field, `<think>` tags in the content kept for the last reply only, and a
  generation prompt that opens the thinking (DeepSeek-R1-like).
"""

QWEN3_STYLE = (
    "{%- set ns = namespace(last_user=-1) %}"
    "{%- for message in messages %}"
    "{%- if message.role == 'user' %}{%- set ns.last_user = loop.index0 %}{%- endif %}"
    "{%- endfor %}"
    "{%- for message in messages %}"
    "{%- if message.role == 'assistant' %}"
    "{%- set content = message.content %}"
    "{%- set thinking = '' %}"
    "{%- if message.reasoning_content is string %}"
    "{%- set thinking = message.reasoning_content %}"
    "{%- elif '</think>' in content %}"
    "{%- set thinking = content.split('</think>')[0].split('<think>')[-1] %}"
    "{%- set content = content.split('</think>')[-1] %}"
    "{%- endif %}"
    "{%- if loop.index0 > ns.last_user %}"
    "{{- '<|im_start|>assistant\\n<think>\\n' + thinking.strip('\\n') + '\\n</think>\\n\\n'"
    " + content.lstrip('\\n') + '<|im_end|>\\n' }}"
    "{%- else %}"
    "{{- '<|im_start|>assistant\\n' + content.lstrip('\\n') + '<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- else %}"
    "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)

LLAMA3_STYLE = (
    "{{- '<|begin_of_text|>' }}"
    "{%- for message in messages %}"
    "{{- '<|start_header_id|>' + message.role + '<|end_header_id|>\\n\\n'"
    " + message.content | trim + '<|eot_id|>' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}"
    "{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}"
    "{%- endif %}"
)

CHANNEL_STYLE = (
    "{%- for message in messages %}"
    "{%- if message.role == 'assistant' %}"
    "{{- '<|start|>assistant' }}"
    "{%- if message.reasoning_content %}"
    "{{- '<|channel|>analysis<|message|>' + message.reasoning_content + '<|end|><|start|>assistant' }}"
    "{%- endif %}"
    "{{- '<|channel|>final<|message|>' + message.content + '<|end|>' }}"
    "{%- else %}"
    "{{- '<|start|>' + message.role + '<|message|>' + message.content + '<|end|>' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|start|>assistant' }}{%- endif %}"
)

R1_STYLE = (
    "{%- for message in messages %}"
    "{%- if message.role == 'assistant' %}"
    "{%- set content = message.content %}"
    "{%- if '</think>' in content and not loop.last %}"
    "{%- set content = content.split('</think>')[-1] %}"
    "{%- endif %}"
    "{{- '<|Assistant|>' + content + '<|end_of_sentence|>' }}"
    "{%- else %}"
    "{{- '<|' + message.role + '|>' + message.content }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|Assistant|><think>\\n' }}{%- endif %}"
)
