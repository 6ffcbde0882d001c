"""A local fake OpenAI-compatible server: POST /v1/chat/completions with scripted replies, GET /v1/models.

Each request takes the next scripted reply (FIFO); when the script is empty
the ``default`` reply is used. Every request body is recorded in ``requests``.
"""
from __future__ import annotations

import dataclasses
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional, Union


@dataclasses.dataclass
class Reply:
    status: int = 200
    body: Any = None            # a dict is sent as JSON, a str as it is
    delay_s: float = 0.0
    headers: dict = dataclasses.field(default_factory=dict)


def completion(content: Optional[Union[str, dict]] = None, refusal: Optional[str] = None,
               prompt_tokens: int = 120, completion_tokens: int = 60, finish_reason: str = "stop") -> Reply:
    """A 200 chat completion whose message holds ``content`` (a dict is sent as JSON text) or a refusal."""
    text = json.dumps(content) if isinstance(content, dict) else content
    return Reply(body={
        "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": "fake-model",
        "choices": [{"index": 0, "finish_reason": finish_reason,
                     "message": {"role": "assistant", "content": text, "refusal": refusal}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    })


def error(status: int, message: str = "scripted failure", kind: str = "server_error") -> Reply:
    return Reply(status=status, body={"error": {"message": message, "type": kind, "code": None}})


def slow(delay_s: float, then: Optional[Reply] = None) -> Reply:
    reply = dataclasses.replace(then) if then is not None else completion("{}")
    reply.delay_s = delay_s
    return reply


class FakeOpenAI:
    def __init__(self, default: Optional[Reply] = None):
        self.script: list[Union[Reply, Callable[[dict], Reply]]] = []
        self.default = default or error(500, "no scripted reply left")
        self.requests: list[dict] = []
        self.model_lists = 0        # GET /v1/models requests, answered with ``models_reply``
        self.models_reply = Reply(body={"object": "list", "data": [
            {"id": "fake-model", "object": "model", "created": 0, "owned_by": "tests"}]})
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                return

            def do_GET(self) -> None:
                if self.path.rstrip("/") != "/v1/models":
                    self._send(error(404, f"no route {self.path}", "not_found"))
                    return
                with fake._lock:
                    fake.model_lists += 1   # kept apart from ``requests``, which holds the chat calls
                if fake.models_reply.delay_s:
                    time.sleep(fake.models_reply.delay_s)
                self._send(fake.models_reply)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(error(404, f"no route {self.path}", "not_found"))
                    return
                body = json.loads(raw or b"{}")
                with fake._lock:
                    fake.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
                    step = fake.script.pop(0) if fake.script else fake.default
                reply = step(body) if callable(step) else step
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                data = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                payload = data.encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout test)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True)
        self._thread.start()

    def push(self, *replies: Union[Reply, Callable[[dict], Reply]]) -> "FakeOpenAI":
        with self._lock:
            self.script.extend(replies)
        return self

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)
