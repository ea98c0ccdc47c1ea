"""A minimal OpenAI-compatible server over transformers' generate, for small models and tests.

Serves the base model under its served name and each LoRA adapter under its own name (as vLLM
does with --lora-modules): GET /health, GET /v1/models, POST /v1/chat/completions (plain or
streamed as server-sent events). One generation runs at a time. SIGTERM or SIGINT stops it
after the request in flight.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


@dataclass(frozen=True)
class ServeRequest:
    base_model: str
    served_name: str
    adapters: dict[str, str]  # served name -> adapter folder
    host: str = "127.0.0.1"
    port: int = 8000  # 0 picks a free port
    # Cap on a request's max_tokens; None: whatever the model's context leaves after the prompt
    # (a kernel reply runs to thousands of tokens: the longest expert solution is ~67 KB).
    max_new_tokens: int | None = None
    revision: str | None = None


# New tokens when neither a cap nor the model's context is known: room for the longest expert
# solution (~67 KB of CUDA, ~20 k tokens) and some prose around it.
FALLBACK_NEW_TOKENS = 24576


def new_token_budget(prompt_tokens: int, max_context: int | None, cap: int | None,
                     requested: int | None) -> int:
    """New tokens for a request: what it asked for, else the most allowed; never more than the
    cap (when None: what the context leaves, else FALLBACK_NEW_TOKENS). Raises ApiError when the
    prompt and the tokens asked for do not fit the model's context."""
    room = max_context - prompt_tokens if max_context else None
    if room is not None and room < 1:
        raise ApiError(400, f"the prompt has {prompt_tokens} tokens; with any new token it "
                            f"exceeds the model's context of {max_context}")
    limit = cap if cap is not None else (room if room is not None else FALLBACK_NEW_TOKENS)
    want = min(int(requested) if requested else limit, limit)
    if room is not None and want > room:
        raise ApiError(400, f"the prompt has {prompt_tokens} tokens; with {want} new tokens it "
                            f"exceeds the model's context of {max_context}")
    return max(1, want)


class ApiError(Exception):
    def __init__(self, status: int, message: str, kind: str = "invalid_request_error"):
        super().__init__(message)
        self.status, self.message, self.kind = status, message, kind


class Engine:
    """The model, its adapters and the generation lock."""

    def __init__(self, request: ServeRequest):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        local = Path(request.base_model).is_dir()
        kwargs = {"revision": request.revision, "local_files_only": local}
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        dtype = torch.bfloat16 if self.device == "cuda" else torch.float32
        self.tokenizer = AutoTokenizer.from_pretrained(request.base_model, **kwargs)
        model = AutoModelForCausalLM.from_pretrained(request.base_model, dtype=dtype, **kwargs)
        if request.adapters:
            from peft import PeftModel

            names = list(request.adapters)
            model = PeftModel.from_pretrained(model, request.adapters[names[0]], adapter_name=names[0])
            for name in names[1:]:
                model.load_adapter(request.adapters[name], adapter_name=name)
        self.model = model.to(self.device).eval()
        self.request = request
        self.max_context = getattr(model.config, "max_position_embeddings", None)
        self.lock = threading.Lock()
        self.created = int(time.time())

    def model_names(self) -> list[str]:
        return [self.request.served_name, *self.request.adapters]

    def chat(self, body: dict) -> dict:
        import torch

        name = body.get("model", self.request.served_name)
        if name not in self.model_names():
            raise ApiError(404, f"model '{name}' is not served (serving {', '.join(self.model_names())})",
                           "not_found_error")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise ApiError(400, "messages: expected a non-empty list")
        chat = [{"role": m.get("role"), "content": m.get("content") or ""} for m in messages]
        ids = self.tokenizer.apply_chat_template(chat, add_generation_prompt=True, tokenize=True,
                                                 return_dict=True, return_tensors="pt")["input_ids"]
        prompt_tokens = ids.shape[1]
        new_tokens = new_token_budget(prompt_tokens, self.max_context, self.request.max_new_tokens,
                                      body.get("max_tokens") or body.get("max_completion_tokens"))
        temperature = float(body.get("temperature", 1.0) if body.get("temperature") is not None else 1.0)
        sampling = {"do_sample": temperature > 0}
        if temperature > 0:
            sampling.update(temperature=temperature, top_p=float(body.get("top_p") or 1.0))
        if body.get("seed") is not None:
            torch.manual_seed(int(body["seed"]))
        with self.lock, torch.no_grad():
            self._select(name)
            output = self.model.generate(
                input_ids=ids.to(self.device),
                attention_mask=torch.ones_like(ids).to(self.device),
                max_new_tokens=new_tokens,
                pad_token_id=self.tokenizer.pad_token_id,
                **sampling,
            )
        completion = output[0, prompt_tokens:]
        text = self.tokenizer.decode(completion, skip_special_tokens=True)
        finished = bool(len(completion)) and int(completion[-1]) == self.tokenizer.eos_token_id
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": name,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "stop" if finished else "length"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(completion),
                      "total_tokens": prompt_tokens + len(completion)},
        }

    def _select(self, name: str) -> None:
        if not self.request.adapters:
            return
        if name == self.request.served_name:
            self.model.base_model.disable_adapter_layers()
        else:
            self.model.base_model.enable_adapter_layers()
            self.model.set_adapter(name)


def _stream_chunks(reply: dict) -> list[dict]:
    base = {"id": reply["id"], "object": "chat.completion.chunk", "created": reply["created"],
            "model": reply["model"]}
    choice = reply["choices"][0]
    return [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": choice["message"]["content"]},
                              "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]},
        {**base, "choices": [], "usage": reply["usage"]},
    ]


def make_handler(engine: Engine):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):  # one line per request on stderr
            sys.stderr.write(f"serve: {self.address_string()} {fmt % args}\n")

        def _send(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _error(self, err: ApiError) -> None:
            self._send(err.status, {"error": {"message": err.message, "type": err.kind}})

        def do_GET(self):
            if self.path == "/health":
                self._send(200, {"status": "ok", "models": engine.model_names()})
            elif self.path.rstrip("/") == "/v1/models":
                data = [{"id": n, "object": "model", "created": engine.created, "owned_by": "ptxbench-train",
                         "parent": None if n == engine.request.served_name else engine.request.served_name}
                        for n in engine.model_names()]
                self._send(200, {"object": "list", "data": data})
            else:
                self._error(ApiError(404, f"no route GET {self.path}", "not_found_error"))

        def do_POST(self):
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._error(ApiError(404, f"no route POST {self.path}", "not_found_error"))
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError as err:
                    raise ApiError(400, f"body: not JSON ({err.msg})") from err
                if not isinstance(body, dict):
                    raise ApiError(400, "body: expected a JSON object")
                reply = engine.chat(body)
            except ApiError as err:
                self._error(err)
                return
            if not body.get("stream"):
                self._send(200, reply)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            for chunk in _stream_chunks(reply):
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.close_connection = True

    return Handler


def serve(request: ServeRequest, ready_file: str | None = None) -> int:
    engine = Engine(request)
    server = ThreadingHTTPServer((request.host, request.port), make_handler(engine))
    server.daemon_threads = True
    port = server.server_address[1]
    stop = threading.Event()

    def on_signal(signum, _frame):
        sys.stderr.write(f"serve: signal {signum}, stopping\n")
        stop.set()
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    url = f"http://{request.host}:{port}/v1"
    print(f"serving {', '.join(engine.model_names())} at {url} (port {port}, device {engine.device})",
          flush=True)
    if ready_file:
        Path(ready_file).write_text(json.dumps({"port": port, "base_url": url,
                                                "models": engine.model_names()}) + "\n")
    server.serve_forever(poll_interval=0.2)
    server.server_close()
    print("serve: stopped", flush=True)
    return 0
