"""The LLM agent's chat-completions client: one request per call, in a shape servers accept.

Every request carries ``model``, ``messages``, ``temperature``, a token limit
(:func:`max_tokens_for`: 256 plus ``llm.tokens_per_memory`` per memory of the cluster, at
most ``llm.max_tokens``; sent as ``llm.max_tokens_param``, so a server never generates until
its context is full) and the ``response_format`` the run's
:class:`~memmaint.maintenance.agents.llm_format.FormatNegotiator` is at. HTTP goes through
:class:`~memmaint.maintenance.core.http.JSONClient` (retries, deadlines, reply cap); an
error whose body says the format is unsupported is not retried but steps the negotiator
down and the call is made again at once.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from memmaint.maintenance.agents.llm_format import (
    FormatNegotiator,
    format_unsupported,
    response_format,
    schema_instructions,
)
from memmaint.maintenance.core.config import LLMConfig
from memmaint.maintenance.core.errors import MemmaintError
from memmaint.maintenance.core.http import EndpointError, JSONClient, RetryPolicy

#: Reply tokens asked for on top of ``tokens_per_memory`` per memory.
BASE_TOKENS = 256


class LLMError(MemmaintError):
    """The endpoint could not be used for a cluster (after retries); ``fatal`` when it cannot
    be used for the rest of the run either (401, 403, 404, a refused fixed format)."""

    def __init__(self, message: str, *, fatal: bool = False):
        super().__init__(message)
        self.fatal = fatal


@dataclass
class Usage:
    """Calls and tokens, summed across clusters (thread-safe), and per namespace: calls made
    inside ``with usage.scope(namespace):`` (per thread) also count for that namespace."""

    llm_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    estimated: bool = False
    http_retries: int = 0
    by_namespace: dict[str, dict[str, int]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _scope: threading.local = field(default_factory=threading.local, repr=False)

    @contextmanager
    def scope(self, namespace: str) -> Iterator[None]:
        """Count this thread's calls for ``namespace`` too while the block runs."""
        self._scope.namespace = namespace
        try:
            yield
        finally:
            self._scope.namespace = None

    def add(self, tokens_in: int, tokens_out: int, estimated: bool) -> None:
        """Count one answered call."""
        namespace = getattr(self._scope, "namespace", None)
        with self._lock:
            self.llm_calls += 1
            self.tokens_in += tokens_in
            self.tokens_out += tokens_out
            self.estimated = self.estimated or estimated
            if namespace is not None:
                ns = self.by_namespace.setdefault(
                    namespace, {"llm_calls": 0, "tokens_in": 0, "tokens_out": 0})
                ns["llm_calls"] += 1
                ns["tokens_in"] += tokens_in
                ns["tokens_out"] += tokens_out

    def retry(self) -> None:
        """Count one HTTP retry."""
        with self._lock:
            self.http_retries += 1

    def to_dict(self) -> dict[str, Any]:
        """The counters, for the plan report."""
        return {"llm_calls": self.llm_calls, "tokens_in": self.tokens_in,
                "tokens_out": self.tokens_out, "tokens_estimated": self.estimated,
                "http_retries": self.http_retries,
                "by_namespace": {ns: dict(v) for ns, v in sorted(self.by_namespace.items())}}


class Completion(NamedTuple):
    """One answered call: the assistant's text, and whether it stopped at the token limit."""

    text: str
    cut_off: bool
    max_tokens: int


def max_tokens_for(n_memories: int, config: LLMConfig) -> int:
    """The reply tokens asked for a cluster of ``n_memories``: ``256 + tokens_per_memory *
    n``, at most ``max_tokens``."""
    return max(16, min(config.max_tokens, BASE_TOKENS + config.tokens_per_memory * n_memories))


class ChatClient:
    """A minimal OpenAI-compatible chat-completions client (stdlib only).

    ``http_retries``, ``backoff_s``, ``timeout_s``, ``call_deadline_s`` and
    ``max_reply_bytes`` of ``config`` make its
    :class:`~memmaint.maintenance.core.http.RetryPolicy`. One client serves one run: its
    :attr:`formats` negotiator remembers the ``response_format`` that works.

    Args:
        config: the ``[llm]`` section.
        usage: the counters to add to (a new :class:`Usage` when omitted).
        sleep: the backoff wait (tests pass a recorder).
        schema: the JSON Schema of a reply.
    """

    def __init__(self, config: LLMConfig, usage: Usage | None = None,
                 sleep: Any = time.sleep, schema: Mapping[str, Any] | None = None) -> None:
        self.config = config
        self.usage = usage or Usage()
        self.schema: Mapping[str, Any] = schema or {"type": "object"}
        self.formats = FormatNegotiator(config.response_format)
        self.url = config.base_url.rstrip("/") + "/chat/completions"
        self.policy = RetryPolicy(retries=config.http_retries, backoff_s=config.backoff_s,
                                  max_wait_s=60.0, timeout_s=config.timeout_s,
                                  deadline_s=config.call_deadline_s,
                                  max_reply_bytes=config.max_reply_bytes)
        self._http = JSONClient(self.url, api_key_env=config.api_key_env or None,
                                policy=self.policy, sleep=sleep, on_retry=self.usage.retry,
                                permanent=format_unsupported)

    def request(self, messages: Sequence[Mapping[str, str]], mode: str,
                max_tokens: int) -> dict[str, Any]:
        """The request body for ``messages`` in ``response_format`` mode ``mode``."""
        msgs = [dict(m) for m in messages]
        if mode == "none" and msgs and msgs[0].get("role") == "system":
            msgs[0]["content"] = msgs[0]["content"] + schema_instructions(self.schema)
        body: dict[str, Any] = {"model": self.config.model, "messages": msgs,
                                "temperature": self.config.temperature,
                                self.config.max_tokens_param: max_tokens}
        fmt = response_format(mode, self.schema)
        if fmt is not None:
            body["response_format"] = fmt
        return body

    def chat(self, messages: Sequence[Mapping[str, str]], n_memories: int = 1,
             deadline_s: float | None = None, max_tokens: int | None = None) -> Completion:
        """One call for a cluster of ``n_memories``; raises :class:`LLMError`.
        ``deadline_s`` shortens the call's deadline (what is left of the run's)."""
        limit = max_tokens or max_tokens_for(n_memories, self.config)
        end = None if deadline_s is None else time.monotonic() + deadline_s
        mode = self.formats.mode
        while True:
            left = None if end is None else max(end - time.monotonic(), 1e-3)
            try:
                raw = self._http.post(self.request(messages, mode, limit), deadline_s=left)
            except EndpointError as exc:
                why = format_unsupported(exc)
                if why is None:
                    raise self._error(exc) from None
                nxt = self.formats.refused(mode, why)
                if nxt is None:
                    raise LLMError(f"{self.url} refused response_format {mode!r} ({why}: "
                                   f"{exc.detail[:160]}); set llm.response_format to "
                                   f"\"auto\" or another mode", fatal=True) from None
                mode = nxt
                continue
            return self._content(raw, messages, limit)

    def complete(self, messages: Sequence[Mapping[str, str]],
                 deadline_s: float | None = None, n_memories: int = 1) -> str:
        """The assistant's reply text (see :meth:`chat`)."""
        return self.chat(messages, n_memories, deadline_s).text

    def _error(self, exc: EndpointError) -> LLMError:
        note = f" ({exc.note})" if exc.note else ""
        if exc.kind == "http" and exc.retryable:
            return LLMError(f"HTTP {exc.status} from {self.url} after {exc.retries} "
                            f"retries{note}")
        if exc.kind == "http":
            hint = (f" (check the key in ${self.config.api_key_env})"
                    if exc.status in (401, 403) else "")
            detail = f": {exc.detail[:160]}" if exc.detail and not hint else ""
            return LLMError(f"HTTP {exc.status} from {self.url}{hint}{detail}",
                            fatal=exc.status in (401, 403, 404))
        if exc.kind in ("timeout", "unreachable", "deadline"):
            return LLMError(f"{exc.exc_type} calling {self.url} after {exc.retries} retries: "
                            f"{exc.reason}{note}")
        return LLMError(str(exc))

    def _content(self, raw: bytes, messages: Sequence[Mapping[str, str]],
                 limit: int) -> Completion:
        try:
            reply = json.loads(raw)
            choice = reply["choices"][0]
            content = choice["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise LLMError(f"{self.url} did not answer in the chat-completions format") from None
        if not isinstance(content, str):
            content = "" if content is None else json.dumps(content)
        usage = reply.get("usage") if isinstance(reply, dict) else None
        if isinstance(usage, dict) and isinstance(usage.get("prompt_tokens"), int):
            self.usage.add(int(usage["prompt_tokens"]),
                           int(usage.get("completion_tokens") or 0), False)
        else:
            chars = sum(len(m.get("content", "")) for m in messages)
            self.usage.add(chars // 4, len(content) // 4, True)
        cut = isinstance(choice, dict) and choice.get("finish_reason") == "length"
        return Completion(content, cut, limit)


__all__ = ["BASE_TOKENS", "ChatClient", "Completion", "LLMError", "Usage", "max_tokens_for"]
