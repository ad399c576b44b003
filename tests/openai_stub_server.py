"""A real HTTP server on 127.0.0.1 speaking OpenAI chat-completions, with scripted replies.

Used by the LLM-agent tests (and runnable by hand: ``python tests/openai_stub_server.py
--port 8000`` serves a model that keeps every memory). A *responder* decides each reply from
the parsed request body; helpers build the common ones:

- :func:`keep_all`: a valid plan keeping every memory named in the prompt;
- :func:`by_cluster`: scripted replies per cluster (keyed by one of its memory ids);
- :class:`Reply`: content, raw body, HTTP status (429, 500...), ``Retry-After``, a delay
  (longer than the client's timeout to simulate one), token usage, and for the HTTP client's
  tests a body dripped a byte at a time (``drip_s``), no ``Content-Length`` and an error body
  echoing the request's ``Authorization`` header.

It answers ``POST .../chat/completions`` and ``POST .../embeddings`` (the responder decides
what; a raw body suits the latter) and 404 elsewhere.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str | None = None  # the assistant message (JSON text usually)
    status: int = 200
    raw: bytes | None = None  # a raw response body instead of a chat completion
    delay: float = 0.0
    retry_after: str | None = None
    usage: tuple[int, int] | None = (100, 20)
    drip_s: float = 0.0  # > 0: send the body one byte at a time, this long apart
    content_length: bool = True  # False: no Content-Length, the connection closes instead
    echo_auth: bool = False  # an error body quoting the request's Authorization header
    message: str | None = None  # an error body's message (default "scripted STATUS")

    @classmethod
    def plan(cls, actions: Sequence[Mapping[str, Any]], **kw: Any) -> Reply:
        full = [{"target_ids": [], "text": None, "reason": "scripted", **a} for a in actions]
        return cls(content=json.dumps({"actions": full}), **kw)


Responder = Callable[[dict[str, Any]], Reply]


def prompt_ids(body: Mapping[str, Any]) -> list[str]:
    """The memory ids the agent listed in its first user message."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return [json.loads(line)["id"] for line in _memory_lines(user)]


def _memory_lines(user: str) -> list[str]:
    m = re.search(r"<memories>\n(.*?)\n</memories>", user, re.DOTALL)
    return m.group(1).splitlines() if m else []


def outside_memories(body: Mapping[str, Any]) -> str:
    """Every message's text with the delimited memory block removed (what a model might
    mistake for instructions)."""
    parts = []
    for m in body["messages"]:
        parts.append(re.sub(r"<memories>\n.*?\n</memories>", "", m["content"],
                            flags=re.DOTALL))
    return "\n".join(parts)


def keep_all(body: Mapping[str, Any]) -> Reply:
    return Reply.plan([{"type": "keep", "memory_ids": [i]} for i in prompt_ids(body)])


def by_cluster(script: Mapping[str, list[Reply | Responder]],
               default: Responder = keep_all) -> Responder:
    """Replies per cluster, in order, keyed by a memory id of the cluster; then ``default``."""
    queues = {k: list(v) for k, v in script.items()}
    lock = threading.Lock()

    def respond(body: dict[str, Any]) -> Reply:
        ids = prompt_ids(body)
        with lock:
            for key, queue in queues.items():
                if key in ids and queue:
                    item = queue.pop(0)
                    break
            else:
                item = default
        return item(body) if callable(item) else item

    return respond


@dataclass
class StubServer:
    """``with StubServer(responder) as s: ... s.url`` (``http://127.0.0.1:PORT/v1``)."""

    responder: Responder = keep_all
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    max_in_flight: int = 0
    port: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._in_flight = 0
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if not self.path.rstrip("/").endswith(("/chat/completions", "/embeddings")):
                    self._send(404, b'{"error": {"message": "not found"}}')
                    return
                body = json.loads(raw)
                with stub._lock:
                    stub.requests.append(body)
                    stub.headers.append(dict(self.headers))
                    stub.paths.append(self.path)
                    stub._in_flight += 1
                    stub.max_in_flight = max(stub.max_in_flight, stub._in_flight)
                answered = False
                try:
                    reply = stub.responder(body)
                    if reply.delay:
                        time.sleep(reply.delay)
                    # out of flight before the answer goes out: once the client has it, it may
                    # send its next request before this thread would reach a finally clause,
                    # and the count would then see one request more than the client has open
                    with stub._lock:
                        stub._in_flight -= 1
                    answered = True
                    self._answer(body, reply)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout)
                finally:
                    if not answered:
                        with stub._lock:
                            stub._in_flight -= 1

            def _answer(self, body: Mapping[str, Any], reply: Reply) -> None:
                if reply.status != 200:
                    extra = {"Retry-After": reply.retry_after} if reply.retry_after else {}
                    message = reply.message or f"scripted {reply.status}"
                    if reply.echo_auth:
                        message += f" for {self.headers.get('Authorization')}"
                    self._send(reply.status, json.dumps(
                        {"error": {"message": message}}).encode(), extra, reply)
                    return
                if reply.raw is not None:
                    self._send(200, reply.raw, None, reply)
                    return
                out: dict[str, Any] = {
                    "id": "chatcmpl-stub", "object": "chat.completion", "created": 0,
                    "model": body.get("model", "stub"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": reply.content}}],
                }
                if reply.usage is not None:
                    out["usage"] = {"prompt_tokens": reply.usage[0],
                                    "completion_tokens": reply.usage[1],
                                    "total_tokens": sum(reply.usage)}
                self._send(200, json.dumps(out).encode(), None, reply)

            def _send(self, status: int, payload: bytes,
                      extra: Mapping[str, str] | None = None, reply: Reply | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if reply is None or reply.content_length:
                    self.send_header("Content-Length", str(len(payload)))
                else:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                for k, v in (extra or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                if reply is not None and reply.drip_s > 0:
                    for i in range(len(payload)):
                        self.wfile.write(payload[i:i + 1])
                        self.wfile.flush()
                        time.sleep(reply.drip_s)
                else:
                    self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self):  # returns self
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


if __name__ == "__main__":  # pragma: no cover - manual use
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    with StubServer(keep_all, port=args.port) as server:
        print(f"serving a keep-everything model at {server.url}", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
